package io.dimstream.query.http;

import java.util.Collection;

/** Renders the service metrics in the Prometheus text exposition format (version 0.0.4). */
final class PrometheusText {
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private PrometheusText() {}

  static String render(Collection<DimensionEndpoint> dims) {
    StringBuilder b = new StringBuilder();
    family(b, dims, "dimstream_events_in_total", "counter", "Change events read from the changes topic.",
        ServiceMetrics::eventsIn);
    family(b, dims, "dimstream_versions_out_total", "counter", "Version records written to the versions topic.",
        ServiceMetrics::versionsOut);
    family(b, dims, "dimstream_late_events_spliced_total", "counter",
        "Late events spliced into a key's history.", ServiceMetrics::lateEventsSpliced);
    family(b, dims, "dimstream_dlq_records_total", "counter", "Records sent to the dead-letter topic.",
        ServiceMetrics::dlqRecords);
    family(b, dims, "dimstream_tombstones_skipped_total", "counter",
        "Debezium tombstones after deletes, skipped under delete: debezium.", ServiceMetrics::tombstonesSkipped);
    family(b, dims, "dimstream_compaction_lag_records", "gauge",
        "Version records not yet committed to the table.", ServiceMetrics::compactionLag);
    family(b, dims, "dimstream_table_last_commit_version", "gauge",
        "The table's latest version (-1 before the first commit).", ServiceMetrics::lastCommitVersion);
    family(b, dims, "dimstream_stream_thread_failures_total", "counter",
        "Stream threads that failed and were replaced.", ServiceMetrics::streamThreadFailures);
    family(b, dims, "dimstream_compactor_failed", "gauge",
        "1 while the compactor is stopped by an error and cannot commit to the table.",
        ServiceMetrics::compactorFailed);
    unknownFields(b, dims);
    enrichments(b, dims);
    return b.toString();
  }

  private static void family(StringBuilder b, Collection<DimensionEndpoint> dims, String name, String type,
      String help, java.util.function.ToLongFunction<ServiceMetrics> value) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    for (DimensionEndpoint d : dims) {
      b.append(name).append("{dimension=\"").append(escape(d.name())).append("\"} ")
          .append(value.applyAsLong(d.metrics())).append('\n');
    }
  }

  private static void unknownFields(StringBuilder b, Collection<DimensionEndpoint> dims) {
    String name = "dimstream_unknown_fields_total";
    b.append("# HELP ").append(name).append(" Records carrying a field the spec does not declare, by field.\n");
    b.append("# TYPE ").append(name).append(" counter\n");
    for (DimensionEndpoint d : dims) {
      d.metrics().unknownFields().forEach((field, count) -> b.append(name).append("{dimension=\"")
          .append(escape(d.name())).append("\",field=\"").append(escape(field)).append("\"} ").append(count)
          .append('\n'));
    }
  }

  private static void enrichments(StringBuilder b, Collection<DimensionEndpoint> dims) {
    String name = "dimstream_enrichment_facts_total";
    b.append("# HELP ").append(name).append(" Facts of each enrichment by outcome: enriched (first records), unmatched"
        + " (first records without a version), waited, corrected (records after the first), dropped (no longer kept"
        + " for corrections).\n");
    b.append("# TYPE ").append(name).append(" counter\n");
    for (DimensionEndpoint d : dims) {
      d.metrics().enrichments().forEach((enrichment, counts) -> counts.forEach((outcome, count) -> b.append(name)
          .append("{dimension=\"").append(escape(d.name())).append("\",enrichment=\"").append(escape(enrichment))
          .append("\",outcome=\"").append(outcome).append("\"} ").append(count).append('\n')));
    }
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
