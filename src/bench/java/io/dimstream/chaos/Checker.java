package io.dimstream.chaos;

import io.dimstream.compactor.VersionsTopicIdentity;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.Version;
import io.dimstream.model.VersionId;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.TableVerifier;
import io.dimstream.query.TimeTravel;
import io.dimstream.service.CatchUp;
import io.dimstream.service.TopicReader;
import io.dimstream.table.DeltaTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * The end-of-run checks: the table against {@link Scd2Fold} of exactly the acknowledged change events, the SCD2
 * invariants of the table, the dead-letter topic against the malformed records on the changes topic, the changes topic
 * against the acknowledged count.
 */
final class Checker {
  private Checker() {}

  /**
   * What the checks found.
   *
   * @param lost       versions of the reference fold the table lacks (or holds with other values)
   * @param duplicated rows beyond the first of one version identity (key, valid_from)
   * @param unexpected rows of the table the reference fold does not have
   */
  record Result(long expected, long versionsInTable, long lost, long duplicated, long unexpected, boolean equal,
      boolean verifyOk, long verifyProblems, long dlqRecords, long dlqExpected, long changesRecords,
      long changesAcknowledged, List<String> examples) {
    boolean passed() {
      return lost == 0 && duplicated == 0 && unexpected == 0 && equal && verifyOk && dlqRecords == dlqExpected
          && changesRecords >= changesAcknowledged;
    }
  }

  /** Waits until the topology committed the end of its inputs and the table records every versions record. */
  static boolean awaitCaughtUp(Map<String, Object> kafka, DimensionSpec spec, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      DeltaTable table = null;
      while (System.nanoTime() < deadline) {
        try {
          if (table == null) {
            table = DeltaTable.open(spec.service().tableStore());
          }
          if (CatchUp.streamsCaughtUp(admin, spec, "dimstream-" + spec.name()) && tableHasAll(kafka, spec, table)) {
            return true;
          }
        } catch (RuntimeException e) {
          // the table or a topic is not readable right now: ask again
        }
        Thread.sleep(3_000);
      }
    }
    return false;
  }

  /** Whether the table records, for every versions partition, the offset of its last record (read_committed). */
  private static boolean tableHasAll(Map<String, Object> kafka, DimensionSpec spec, DeltaTable table) {
    TopicReader.Contents versions = TopicReader.readAll(kafka, spec.topics().versions(), false);
    var snapshot = table.latest();
    VersionsTopicIdentity identity = new VersionsTopicIdentity(spec.name(), spec.topics().versions(),
        VersionsTopicIdentity.topicId(kafka, spec.topics().versions()));
    for (var e : versions.lastOffsets().entrySet()) {
      if (snapshot.txnVersion(identity.appId(e.getKey())) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  static Result check(Map<String, Object> kafka, DimensionSpec spec, Workload workload) {
    List<Version> expected = Scd2Fold.fold(spec, workload.acknowledgedEvents());
    DeltaTable table = DeltaTable.open(spec.service().tableStore());
    List<Version> actual = new ArrayList<>(table.latest().scan().toList());
    actual.sort(BusinessKeys.VERSION_ORDER);

    Map<Version, Integer> want = new HashMap<>();
    expected.forEach(v -> want.merge(v, 1, Integer::sum));
    Map<VersionId, Integer> identities = new HashMap<>();
    long duplicated = 0;
    long unexpected = 0;
    List<String> examples = new ArrayList<>();
    for (Version v : actual) {
      if (identities.merge(v.id(), 1, Integer::sum) > 1) {
        duplicated++;
        if (examples.size() < 10) {
          examples.add("duplicated " + v);
        }
        continue;
      }
      Integer n = want.get(v);
      if (n == null) {
        unexpected++;
        if (examples.size() < 10) {
          examples.add("unexpected " + v);
        }
      } else if (n == 1) {
        want.remove(v);
      } else {
        want.put(v, n - 1);
      }
    }
    long lost = want.values().stream().mapToLong(Integer::longValue).sum();
    want.keySet().stream().limit(Math.max(0, 10 - examples.size())).forEach(v -> examples.add("lost " + v));

    TableVerifier.Report verify = TableVerifier.verify(DeltaVersionTable.open(spec.service().tableStore())
        .at(TimeTravel.LATEST));
    long dlq = TopicReader.readAll(kafka, spec.topics().dlq(), false).records();
    TopicReader.Contents changes = TopicReader.readAll(kafka, spec.topics().changes(), true);
    // the malformed records on the changes topic, not the acknowledged sends: a record sent again after the
    // producer gave up on it may be there twice, and the service must dead-letter each copy
    long malformed = changes.kept().stream().filter(r -> Arrays.equals(r.value(), Workload.BAD_RECORD)).count();
    return new Result(expected.size(), actual.size(), lost, duplicated, unexpected, actual.equals(expected),
        verify.ok(), verify.problems(), dlq, malformed, changes.records(), workload.acknowledged(),
        examples);
  }
}
