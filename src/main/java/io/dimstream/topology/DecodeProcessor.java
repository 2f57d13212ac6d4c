package io.dimstream.topology;

import io.dimstream.change.Decoded;
import io.dimstream.change.RejectReason;
import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.model.ChangeEvent;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes changes-topic records: an accepted one is forwarded keyed by its canonical business key bytes, a
 * rejected one keeps its original key and value and gains the error headers; one over the size policy is rejected
 * as {@code too-large} without being decoded. Under {@code topics.changes_keyed_by_business_key} an accepted record
 * whose key belongs in another partition than the one it came from is rejected as {@code wrong-partition}.
 */
final class DecodeProcessor implements Processor<byte[], byte[], byte[], Envelope> {
  private static final Logger LOG = LoggerFactory.getLogger(DecodeProcessor.class);

  /** Distinct field names counted per task; more are counted under {@value #OTHER_FIELDS}. */
  static final int MAX_FIELD_LABELS = 100;
  static final String OTHER_FIELDS = "(other)";

  private final Scd2Step step;
  private final EventJson json;
  private final StateBinary state;
  private final RecordSizes sizes;
  private ProcessorContext<byte[], Envelope> context;
  private TopologyMetrics metrics;
  private final io.dimstream.spec.DimensionSpec spec;
  private org.apache.kafka.common.metrics.Sensor rejected;
  private org.apache.kafka.common.metrics.Sensor skipped;

  private final UnknownFieldWarnings unknownWarnings;
  /** Partitions of the changes topic when it is declared keyed (no repartition hop); 0 when it is not. */
  private int keyedPartitions;
  /** Per field name, its counter in this task; bounded because field names come from the input. */
  private final java.util.Map<String, org.apache.kafka.common.metrics.Sensor> unknownCounters = new java.util.HashMap<>();

  DecodeProcessor(io.dimstream.spec.DimensionSpec spec, Scd2Step step, EventJson json, RecordSizes sizes,
      UnknownFieldWarnings unknownWarnings) {
    this.spec = spec;
    this.step = step;
    this.json = json;
    this.state = new StateBinary(spec);
    this.sizes = sizes;
    this.unknownWarnings = unknownWarnings;
  }

  @Override
  public void init(ProcessorContext<byte[], Envelope> context) {
    this.context = context;
    this.metrics = new TopologyMetrics(context);
    this.rejected = metrics.counter("decode", TopologyMetrics.Counter.DLQ_RECORDS, "records rejected by the decoder");
    this.skipped = metrics.counter("decode", TopologyMetrics.Counter.TOMBSTONES_SKIPPED,
        "Debezium tombstones after deletes, skipped under delete: debezium");
    if (spec.topics().changesKeyed()) {
      Object configured = context.appConfigs().get(DimensionTopology.CHANGES_PARTITIONS_CONFIG);
      try {
        keyedPartitions = Integer.parseInt(String.valueOf(configured).trim());
      } catch (NumberFormatException e) {
        keyedPartitions = 0;
      }
      if (keyedPartitions < 1) {
        throw TopologyErrors.changesPartitionsUnknown(spec, configured);
      }
    }
  }

  @Override
  public void close() {
    metrics.close();
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    long size = RecordSizes.size(record.key(), record.value(), record.headers());
    if (sizes.tooLarge(size)) {
      rejected.record();
      LOG.warn("Rejected record at {}: {} ({} bytes, limit {})", where(context), RejectReason.TOO_LARGE, size,
          sizes.policy().maxRecordBytes());
      context.forward(sizes.deadLetter(record, size));
      return;
    }
    if (SnapshotMarkers.isControl(record.headers())) {
      controlRecord(record);
      return;
    }
    Decoded result = step.decode(record.key(), record.value(), record.timestamp(), () -> where(context));
    if (result instanceof Decoded.Skipped) {
      skipped.record();
      return;
    }
    if (result instanceof Decoded.Accepted a) {
      if (!a.unknownFields().isEmpty()) {
        countUnknown(a.unknownFields());
      }
      ChangeEvent event = a.event();
      byte[] keyBytes = json.keyBytes(event.key());
      if (keyedPartitions > 0 && wrongPartition(record, keyBytes)) {
        return;
      }
      byte[] decoded = state.encodeEvent(event);
      byte[] carried = decoded.length <= sizes.policy().maxEventBytes() ? decoded : null;
      // without the repartition hop the envelope reaches the SCD2 processor in memory: the event goes along as is
      context.forward(record.withKey(keyBytes).withValue(keyedPartitions > 0
          ? Envelope.accepted(record.key(), record.value(), carried, event)
          : Envelope.accepted(record.key(), record.value(), carried)));
    } else {
      Decoded.Rejected r = (Decoded.Rejected) result;
      rejected.record();
      LOG.warn("Rejected record at {}: {} ({})", where(context), r.reason(), r.detail());
      context.forward(record.withValue(Envelope.rejected(record.key(), record.value()))
          .withHeaders(errorHeaders(record.headers(), r.reason(), r.detail())));
    }
  }

  /**
   * Without the repartition hop a key's history lives in the task of the partition its records arrive in, so a
   * record in any other partition than its key's would start a second history of the key: it goes to the DLQ.
   */
  private boolean wrongPartition(Record<byte[], byte[]> record, byte[] keyBytes) {
    int belongs = KeyedChanges.partition(keyBytes, keyedPartitions);
    int arrived = context.recordMetadata().map(RecordMetadata::partition).orElse(-1);
    if (arrived == belongs) {
      return false;
    }
    String detail = TopologyErrors.wrongPartition(spec, keyBytes, spec.topics().changes(), arrived, belongs,
        keyedPartitions);
    rejected.record();
    LOG.warn("Rejected record at {}: {} ({})", where(context), RejectReason.WRONG_PARTITION, detail);
    context.forward(record.withValue(Envelope.rejected(record.key(), record.value()))
        .withHeaders(errorHeaders(record.headers(), RejectReason.WRONG_PARTITION, detail)));
    return true;
  }

  private void countUnknown(java.util.List<String> fields) {
    unknownWarnings.seen(fields, () -> where(context));
    for (String f : fields) {
      String label = unknownCounters.containsKey(f) || unknownCounters.size() < MAX_FIELD_LABELS ? f : OTHER_FIELDS;
      unknownCounters.computeIfAbsent(label, l -> metrics.counter("decode", TopologyMetrics.Counter.UNKNOWN_FIELDS,
          "fields the spec does not declare, by name", java.util.Map.of(TopologyMetrics.FIELD_TAG, l))).record();
    }
  }

  /** An end-of-snapshot marker goes on to every SCD2 task; an unreadable control record to the DLQ. */
  private void controlRecord(Record<byte[], byte[]> record) {
    String problem = null;
    var marker = SnapshotMarkers.marker(record.headers());
    if (marker.isEmpty()) {
      problem = "a control record (header " + SnapshotMarkers.CONTROL + ") that is no readable end-of-snapshot marker";
    } else {
      try {
        SnapshotTracker.parseAt(spec, marker.get().snapshot().at());
      } catch (RuntimeException e) {
        problem = "the end-of-snapshot marker's " + SnapshotMarkers.SNAPSHOT_AT + " '" + marker.get().snapshot().at()
            + "' is no value of the sequence column: " + e.getMessage();
      }
    }
    if (problem != null) {
      rejected.record();
      LOG.warn("Rejected record at {}: {} ({})", where(context), RejectReason.BAD_CONTROL_RECORD, problem);
      context.forward(record.withValue(Envelope.rejected(record.key(), record.value()))
          .withHeaders(errorHeaders(record.headers(), RejectReason.BAD_CONTROL_RECORD, problem
              + "; send markers with `dimstream produce --snapshot`")));
      return;
    }
    // Without the repartition hop this task sees only its own partition's marker, and every row of its keys came
    // through that partition before it: for this task the snapshot ends with this one marker.
    Headers headers = keyedPartitions > 0 ? SnapshotMarkers.asOnlyMarker(record.headers()) : record.headers();
    context.forward(record.withKey(SnapshotMarkers.MARKER_KEY).withValue(Envelope.accepted(null, record.value()))
        .withHeaders(headers));
  }

  /** The original headers plus {@code dimstream.error} and {@code dimstream.error.detail}. */
  static Headers errorHeaders(Headers original, String reason, String detail) {
    Headers h = new RecordHeaders(original.toArray());
    h.remove(DimensionTopology.ERROR_HEADER);
    h.remove(DimensionTopology.ERROR_DETAIL_HEADER);
    h.add(DimensionTopology.ERROR_HEADER, reason.getBytes(StandardCharsets.UTF_8));
    h.add(DimensionTopology.ERROR_DETAIL_HEADER, (detail == null ? "" : detail).getBytes(StandardCharsets.UTF_8));
    return h;
  }

  /** topic/partition/offset of the record being processed, for log lines. */
  static String where(ProcessorContext<?, ?> context) {
    return context.recordMetadata()
        .map((RecordMetadata m) -> m.topic() + "/" + m.partition() + "@" + m.offset())
        .orElse("(unknown position)");
  }
}
