package io.dimstream.topology;

import io.dimstream.change.Decoded;
import io.dimstream.change.RejectReason;
import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.history.ApplyResult;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.EventRecords;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes each change record's event as the decoder left it in the {@link Envelope} (or decodes the original again when
 * it is not there), applies it to the key's history through
 * {@link IncrementalHistory} and forwards the resulting version records; a too-late event, one whose decoded form
 * exceeds the size policy, or one the engine fails on is forwarded, unchanged, for the DLQ. Prunes the event store
 * on a wall-clock punctuator.
 */
final class Scd2Processor implements Processor<byte[], Envelope, OutKey, byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(Scd2Processor.class);

  private final DimensionSpec spec;
  private final Scd2Step step;
  private final IncrementalHistory history;
  private final EventJson eventJson;
  /** Set in {@link #init}: it reads the earlier attribute layouts from the Streams properties. */
  private StateBinary state;
  /** This task's encoder of version records (reuses its buffers; a task runs on one thread at a time). */
  private final VersionRecordCodec.RecordEncoder encoder;
  /**
   * Whether a key decoded from a change record equals the key read back from its canonical bytes, so that an event
   * handed over in memory can keep its own key: true for key columns whose JSON form round-trips exactly.
   */
  private final boolean keyRoundTripExact;
  /** The change header's value per {@link ChangeKind}, encoded once (Kafka only reads header values). */
  private static final byte[][] CHANGE_HEADER_VALUES = java.util.Arrays.stream(ChangeKind.values())
      .map(k -> k.wireName().getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  /** Keys of the snapshots store deleted per pass when a snapshot ends (bounds the memory of the deletion). */
  private static final int SNAPSHOT_DELETE_BATCH = 10_000;

  /**
   * Stored events one prune punctuation looks at (about 50 ms of the stream thread on 2 idle cores, bench/run --only
   * prune): at a slice a second a store of 20M events is swept in about half an hour, well within the scale of any
   * lateness horizon.
   */
  static final int PRUNE_SLICE_EVENTS = 10_000;
  /** How often a prune slice may run; a new pass over the store starts at most once per {@code pruneInterval}. */
  static final Duration PRUNE_SLICE_INTERVAL = Duration.ofSeconds(1);

  private final Duration pruneInterval;
  /** Wall-clock time the current prune pass began; {@link Long#MIN_VALUE} before the first. */
  private long passStartMs = Long.MIN_VALUE;
  private final RecordSizes sizes;
  private ProcessorContext<OutKey, byte[]> context;
  private RocksDbHistoryStore store;
  /** The timestamp of the event records sent now: the input record's, or the prune pass's wall-clock time. */
  private long eventRecordTimestamp;
  private SnapshotTracker snapshots;
  private TopologyMetrics metrics;
  private org.apache.kafka.common.metrics.Sensor eventsIn;
  private org.apache.kafka.common.metrics.Sensor versionsOut;
  private org.apache.kafka.common.metrics.Sensor lateSpliced;
  private org.apache.kafka.common.metrics.Sensor dlqOut; // every record this processor sends to the DLQ

  Scd2Processor(DimensionSpec spec, Scd2Step step, VersionRecordCodec versions, Duration pruneInterval,
      RecordSizes sizes) {
    this.spec = spec;
    this.step = step;
    this.sizes = sizes;
    this.history = step.history();
    this.eventJson = new EventJson(spec);
    this.encoder = versions.encoder();
    this.keyRoundTripExact = spec.keyColumns().stream().allMatch(c -> EXACT_KEY_KINDS.contains(c.type().kind()));
    this.pruneInterval = pruneInterval;
  }

  @Override
  public void init(ProcessorContext<OutKey, byte[]> context) {
    this.context = context;
    this.state = DimensionTopology.stateCodec(spec, context.appConfigs());
    this.metrics = new TopologyMetrics(context);
    eventsIn = metrics.counter("scd2", TopologyMetrics.Counter.EVENTS_IN, "change events applied to history");
    versionsOut = metrics.counter("scd2", TopologyMetrics.Counter.VERSIONS_OUT, "version records emitted");
    lateSpliced = metrics.counter("scd2", TopologyMetrics.Counter.LATE_SPLICED, "late events spliced into history");
    dlqOut = metrics.counter("scd2", TopologyMetrics.Counter.DLQ_RECORDS, "events beyond the lateness horizon or failing");
    KeyValueStore<Bytes, byte[]> events = context.getStateStore(DimensionTopology.EVENT_STORE);
    this.store = new RocksDbHistoryStore(events, eventJson, state, spec.sequence().size());
    store.tellWrites(this::forwardEventRecord);
    this.snapshots = new SnapshotTracker(context.getStateStore(DimensionTopology.SNAPSHOT_STORE), spec);
    if (spec.latenessHorizon() != Long.MAX_VALUE) { // an unbounded horizon keeps every event
      Duration every = pruneInterval.compareTo(PRUNE_SLICE_INTERVAL) < 0 ? pruneInterval : PRUNE_SLICE_INTERVAL;
      context.schedule(every, PunctuationType.WALL_CLOCK_TIME, this::prune);
    }
  }

  @Override
  public void process(Record<byte[], Envelope> record) {
    eventRecordTimestamp = record.timestamp(); // the store writes this record causes carry its time, as versions do
    if (java.util.Arrays.equals(record.key(), SnapshotMarkers.MARKER_KEY)) {
      endOfSnapshot(record);
      return;
    }
    Envelope env = record.value();
    ChangeEvent inMemory = env.decoded();
    BusinessKey key = inMemory != null && keyRoundTripExact ? inMemory.key() : eventJson.key(record.key());
    store.useKey(key, record.key());
    ChangeEvent event;
    Scd2Step.Outcome outcome;
    try {
      byte[] binary = env.event();
      if (inMemory != null) {
        // from the decoder of this task, no repartition hop: the decoded event as is (with the key as the store and
        // the repartitioned path read it back from the canonical bytes)
        event = keyRoundTripExact ? inMemory
            : new ChangeEvent(key, inMemory.sequence(), inMemory.delete(), inMemory.attributes());
      } else if (binary != null) {
        event = state.decodeEvent(key, binary);
      } else {
        // an older release's record, or an event too large to carry: decode the original again
        Decoded decoded = step.decode(env.sourceKey(), env.sourceValue(), record.timestamp(),
            () -> DecodeProcessor.where(context));
        if (decoded instanceof Decoded.Rejected r) {
          // the decoder accepted this record upstream; only a decoder changed in between (an upgrade) gets here
          reject(record, r.reason(), r.detail());
          return;
        }
        event = ((Decoded.Accepted) decoded).event();
        binary = state.encodeEvent(event);
      }
      int eventBytes = jsonEventBytes(event, binary.length);
      if (eventBytes > sizes.policy().maxEventBytes()) {
        reject(record, RejectReason.TOO_LARGE, "the decoded event is " + eventBytes + " bytes, over the limit of "
            + sizes.policy().maxEventBytes() + " bytes that keeps every version and state record within Kafka's "
            + "limits (service.max_record_bytes plus " + io.dimstream.spec.SizePolicy.HEADER_ALLOWANCE
            + "); raise service.max_record_bytes to apply it");
        return;
      }
    } catch (KafkaException e) {
      throw e;
    } catch (RuntimeException e) {
      // stored by our own DecodeProcessor, so a failure here is a bug: to the DLQ like any processing failure
      LOG.error("Processing failed for the record at {}; sent to the DLQ as {}", DecodeProcessor.where(context),
          RejectReason.PROCESSING_ERROR, e);
      toDlq(record, RejectReason.PROCESSING_ERROR, "processing failed: " + e);
      return;
    }
    outcome = step.apply(store, event, () -> DecodeProcessor.where(context));
    if (outcome instanceof Scd2Step.Applied a) {
      ApplyResult.Applied applied = a.result();
      eventsIn.record();
      if (applied.late()) {
        lateSpliced.record();
      }
      for (VersionChange c : applied.changes()) {
        forwardVersion(record, c);
      }
      versionsOut.record(applied.changes().size());
      SnapshotMarkers.snapshotOf(record.headers()).ifPresent(ref -> snapshots.carried(record.key(), ref));
    } else {
      Scd2Step.Rejected r = (Scd2Step.Rejected) outcome;
      reject(record, r.reason(), r.detail());
    }
  }

  /**
   * Counts an end-of-snapshot marker; after the last one, closes at the snapshot's sequence every open key of this
   * partition the snapshot did not carry, through the engine like a delete. A key with data at or after that
   * sequence is left open: it changed after the snapshot was taken.
   */
  private void endOfSnapshot(Record<byte[], Envelope> record) {
    var marker = SnapshotMarkers.marker(record.headers());
    if (marker.isEmpty()) {
      return; // checked by DecodeProcessor
    }
    var ended = snapshots.marker(marker.get());
    if (ended.isEmpty()) {
      return;
    }
    java.util.List<byte[]> toClose = new java.util.ArrayList<>();
    long[] newer = {0};
    store.forEachKey((keyBytes, keyState) -> {
      if (keyState.open() == null || !keyState.open().isCurrent() || snapshots.wasCarried(keyBytes, ended.get().id())) {
        return;
      }
      if (keyState.lastSequence().isBefore(ended.get().at())) {
        toClose.add(keyBytes);
      } else {
        newer[0]++;
      }
    });
    for (byte[] keyBytes : toClose) {
      BusinessKey key = eventJson.key(keyBytes);
      store.useKey(key, keyBytes);
      Scd2Step.Outcome o = step.apply(store, ChangeEvent.delete(key, ended.get().at()),
          () -> DecodeProcessor.where(context));
      if (o instanceof Scd2Step.Applied a) {
        Record<byte[], Envelope> keyed = record.withKey(keyBytes);
        a.result().changes().forEach(c -> forwardVersion(keyed, c));
        versionsOut.record(a.result().changes().size());
      }
    }
    long forgotten = snapshots.forgetKeys(SNAPSHOT_DELETE_BATCH);
    LOG.info("Snapshot {} ended at {}: closed {} keys it did not carry; left {} open that changed after it; forgot"
        + " {} carried-key entries", ended.get().id(), DecodeProcessor.where(context), toClose.size(), newer[0],
        forgotten);
  }

  /**
   * The size of the event's JSON form, which the size policy bounds, or a lower bound of it when that is far below
   * the limit: the JSON form is at most {@value #JSON_EXPANSION} times the binary form plus a few bytes (a one-byte
   * null or control character is its largest expansion), so only a large event pays for a JSON rendering.
   */
  private int jsonEventBytes(ChangeEvent event, int binary) {
    if ((long) binary * JSON_EXPANSION + 64 <= sizes.policy().maxEventBytes()) {
      return binary;
    }
    return eventJson.encodeEvent(event).length;
  }

  private static final int JSON_EXPANSION = 6;

  private static final java.util.Set<io.dimstream.types.ColumnType.Kind> EXACT_KEY_KINDS = java.util.EnumSet.of(
      io.dimstream.types.ColumnType.Kind.LONG, io.dimstream.types.ColumnType.Kind.INT,
      io.dimstream.types.ColumnType.Kind.STRING, io.dimstream.types.ColumnType.Kind.BOOLEAN,
      io.dimstream.types.ColumnType.Kind.DATE);

  /** Logs a rejection (a processing error was already logged with its stack trace) and sends it to the DLQ. */
  private void reject(Record<byte[], Envelope> record, String reason, String detail) {
    if (!RejectReason.PROCESSING_ERROR.equals(reason)) {
      LOG.warn("Rejected record at {}: {} ({})", DecodeProcessor.where(context), reason, detail);
    }
    toDlq(record, reason, detail);
  }

  /** Forwards the record's original key and value, with the error headers, to the DLQ. */
  private void toDlq(Record<byte[], Envelope> record, String reason, String detail) {
    dlqOut.record();
    Envelope env = record.value();
    context.forward(new Record<>(new OutKey(null, env.sourceKey()), env.sourceValue(), record.timestamp(),
        DecodeProcessor.errorHeaders(record.headers(), reason, detail)));
  }

  private void forwardVersion(Record<byte[], Envelope> in, VersionChange c) {
    Headers headers = new RecordHeaders();
    headers.add(DimensionTopology.CHANGE_HEADER, CHANGE_HEADER_VALUES[c.kind().ordinal()]);
    byte[] value = c instanceof VersionChange.Upsert u ? encoder.encodeValue(u.version(), u.kind()) : null;
    OutKey key = new OutKey(in.key(), encoder.encodeKey(c.key(), c.validFrom()));
    context.forward(new Record<>(key, value, in.timestamp(), headers));
  }

  /**
   * Sends one write of the event store to the versions topic as an event record ({@link EventRecords}), in the
   * transaction of the input record being processed (or of the punctuation that pruned it): the compactor keeps it
   * beside the table, cut at the same offsets as the versions, so a takeover after lost state rebuilds this store.
   */
  private void forwardEventRecord(byte[] keyBytes, byte[] storeKey, byte[] value) {
    Headers headers = EventRecordHeaders.mark(new RecordHeaders());
    context.forward(new Record<>(new OutKey(keyBytes, EventRecords.recordKey(storeKey)), value,
        eventRecordTimestamp, headers));
  }

  /**
   * Applies the pruning rule (see {@link IncrementalHistory#pruneCutoff}) to the next {@link #PRUNE_SLICE_EVENTS}
   * stored events; each punctuation goes on where the last stopped, so the whole store is pruned in turn. A new pass
   * over the store starts at most once per {@code pruneInterval}: a small store costs one short pass per interval, a
   * large one is swept slice by slice without ever stalling the stream thread for long.
   */
  void prune(long nowMs) {
    eventRecordTimestamp = nowMs; // a pruned event's record carries the time of the pass that pruned it
    if (store.pruneAtStart()) { // between two passes
      if (passStartMs != Long.MIN_VALUE && nowMs - passStartMs < pruneInterval.toMillis()) {
        return;
      }
      passStartMs = nowMs;
    }
    long pruned = store.pruneSlice(history, PRUNE_SLICE_EVENTS);
    if (pruned > 0) {
      LOG.debug("Pruned {} stored events past the lateness horizon of {}", pruned, spec.name());
    }
  }

  @Override
  public void close() {
    if (store != null) {
      store.close();
    }
    if (metrics != null) {
      metrics.close();
    }
  }
}
