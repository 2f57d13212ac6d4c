package io.dimstream.chaos;

import io.dimstream.bench.Figures;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Prints the run's figures, one JSON line each on stdout, and what went wrong on stderr. */
final class Report {
  private Report() {}

  static void print(Map<String, Object> setup, Workload w, List<Fault> faults, Network network, Checker.Result r,
      Latencies lat, boolean caughtUp, double catchUpSeconds, double produceSeconds, int unexpectedExits,
      Exception trackFailure) {
    Map<String, Object> params = Figures.params("seed", setup.get("seed"), "minutes", setup.get("minutes"));
    emit("events_produced", w.acknowledged(), "records", with(setup, "sent", w.sent(), "malformed",
        w.acknowledgedBadRecords(), "resent", w.resent(), "send_seconds", Math.round(produceSeconds)));
    Map<String, Long> byKind = new LinkedHashMap<>();
    for (Fault.Kind k : Fault.Kind.values()) {
      if (!k.isPartition() || network.partitions()) {
        byKind.put(k.label, faults.stream().filter(f -> f.kind() == k).count());
      }
    }
    byKind.forEach((kind, n) -> emit("faults", n, "faults", with(params, "kind", kind)));
    emit("faults_total", faults.size(), "faults", params);
    emit("versions_in_table", r.versionsInTable(), "versions", with(params, "reference_fold", r.expected()));
    emit("lost_versions", r.lost(), "versions", params);
    emit("duplicated_versions", r.duplicated(), "versions", params);
    emit("unexpected_versions", r.unexpected(), "versions", params);
    emit("table_equals_reference_fold", r.equal() ? 1 : 0, "bool", params);
    emit("table_verify_ok", r.verifyOk() ? 1 : 0, "bool", with(params, "problems", r.verifyProblems()));
    emit("dlq_records", r.dlqRecords(), "records", with(params, "malformed_on_changes_topic", r.dlqExpected()));
    emit("changes_topic_records", r.changesRecords(), "records", with(params, "acknowledged",
        r.changesAcknowledged()));
    emit("max_recovery_s", lat.maxRecoverySeconds(), "s", with(params, "fault", lat.slowestRecovery()));
    emit("p99_latency_ms", lat.p99Outside(), "ms", with(params, "window", "outside faults", "samples",
        lat.outsideSamples(), "p50_ms", lat.p50Outside(), "p99_ms_after_first_30s", lat.p99OutsideAfterWarmUp()));
    emit("p99_latency_ms_during_faults", lat.p99Inside(), "ms", with(params, "samples",
        lat.samples() - lat.outsideSamples() - lat.notVisible(), "max_ms", lat.max()));
    emit("catch_up_s", caughtUp ? catchUpSeconds : -1, "s", params);
    emit("instance_exits_unasked", unexpectedExits, "exits", params);
    if (!r.examples().isEmpty()) {
      System.err.println("bench/chaos: differences (first 10):");
      r.examples().forEach(e -> System.err.println("  " + e));
    }
    if (!caughtUp) {
      System.err.println("bench/chaos: FAILED: the service did not catch up in time");
    }
    if (w.failure() != null) {
      System.err.println("bench/chaos: FAILED: the producer gave up on a record " + (Workload.MAX_RESENDS + 1) + " times: " + w.failure());
    }
    if (trackFailure != null) {
      System.err.println("bench/chaos: a fault track stopped early: " + trackFailure);
    }
    if (!r.passed()) {
      System.err.println("bench/chaos: FAILED: lost " + r.lost() + ", duplicated " + r.duplicated() + ", unexpected "
          + r.unexpected() + ", equal " + r.equal() + ", verify " + r.verifyOk() + ", dlq " + r.dlqRecords() + "/"
          + r.dlqExpected() + ", changes topic " + r.changesRecords() + "/" + r.changesAcknowledged());
    }
  }

  /** How often the fencing refused a zombie: a compactor's stale batch, a stream task's old producer. */
  static void zombies(Map<String, Object> setup, long compactors, long producers) {
    Map<String, Object> params = Figures.params("seed", setup.get("seed"), "minutes", setup.get("minutes"));
    emit("zombie_compactor_commits_refused", compactors, "times", params);
    emit("zombie_producer_sends_refused", producers, "log lines", params);
  }

  private static void emit(String metric, double value, String unit, Map<String, Object> params) {
    Figures.emit("chaos", metric, value, unit, params);
  }

  private static Map<String, Object> with(Map<String, Object> params, Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>(params);
    m.putAll(Figures.params(kv));
    return m;
  }
}
