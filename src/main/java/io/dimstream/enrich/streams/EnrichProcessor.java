package io.dimstream.enrich.streams;

import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.enrich.Enriched;
import io.dimstream.enrich.EnrichedAvro;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.Enricher;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.Fact;
import io.dimstream.enrich.FactBinary;
import io.dimstream.enrich.FactDecoder;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.StateLayouts;
import io.dimstream.topology.DimensionTopology;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's {@link Enricher}: fed the dimension's versions-topic records and the facts repartitioned by business
 * key (the same partition of both), it forwards enriched records keyed by the fact key. A wall-clock punctuator
 * releases facts whose grace ran out and finishes a key's run of changes.
 */
final class EnrichProcessor implements Processor<byte[], byte[], byte[], byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(EnrichProcessor.class);

  private final EnrichmentSpec spec;
  private final VersionRecordCodec versions;
  /** Whether the dimension writes its version records in the Confluent wire format. */
  private final boolean framed;
  private final FactDecoder facts;
  private final FactBinary binary;
  private final EnrichedRows rows;
  /** The Avro values of the enriched records when they are written in the wire format; null for JSON. */
  private final EnrichedAvro avro;
  private final EnrichmentCounters counters;
  private final Duration tick;
  private ProcessorContext<byte[], byte[]> context;
  private Enricher enricher;
  private KeyValueStore<Bytes, byte[]> versionsStore;
  /** Whether the versions store started empty here and is not filled yet ({@link VersionsFill}). */
  private boolean unfilled;
  private long timestamp;
  private final Consumer<Enriched> emit = this::emit;

  /** @param schemaId the registry's id of the enriched records' Avro schema; empty to write JSON */
  EnrichProcessor(EnrichmentSpec spec, OptionalInt schemaId, EnrichmentCounters counters, Duration tick) {
    this.spec = spec;
    this.versions = VersionRecordCodec.forSpec(spec.dimension());
    this.framed = io.dimstream.codec.WireFraming.versionsFramed(spec.dimension());
    this.facts = new FactDecoder(spec);
    this.binary = new FactBinary(spec);
    this.rows = new EnrichedRows(spec);
    this.avro = schemaId.isPresent() ? new EnrichedAvro(spec, schemaId.getAsInt()) : null;
    this.counters = counters;
    this.tick = tick;
  }

  @Override
  public void init(ProcessorContext<byte[], byte[]> context) {
    this.context = context;
    versionsStore = context.getStateStore(EnrichmentTopology.versionsStore(spec));
    unfilled = !"false".equals(String.valueOf(context.appConfigs().get(EnrichmentTopology.FILL_VERSIONS_CONFIG)))
        && VersionsFill.needed(versionsStore);
    // the versions it keeps may have been written under the specs the dimension's table was evolved from
    enricher = new Enricher(spec, DimensionTopology.stateLayouts(spec.dimension(), context.appConfigs()),
        new KeyValueSortedBytesStore(versionsStore),
        new KeyValueSortedBytesStore(context.getStateStore(EnrichmentTopology.factsStore(spec))), counters);
    // the stores are restored by now: a spec the kept facts cannot follow stops the task before any record
    enricher.checkKeptFacts();
    context.schedule(tick, PunctuationType.WALL_CLOCK_TIME, now -> {
      timestamp = now;
      if (unfilled) {
        fill(now);
      }
      enricher.onTick(now, emit);
    });
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    long now = context.currentSystemTimeMs();
    if (unfilled) {
      timestamp = now;
      fill(now); // before the first record: the versions written before this store started
    }
    timestamp = record.timestamp();
    String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
    if (topic.equals(spec.dimension().topics().versions())) {
      if (io.dimstream.topology.EventRecordHeaders.isEvent(record.headers())) {
        return; // the event store's writes, kept for the table, not versions
      }
      onVersionRecord(record.key(), record.value(), null, now);
      return;
    }
    Fact fact;
    if (record.headers().lastHeader(FactKeyProcessor.BINARY_HEADER) != null) {
      try {
        fact = binary.decode(record.value());
      } catch (IllegalArgumentException e) {
        // written by FactKeyProcessor from a fact it read: a record it cannot read again is a bug, not a bad fact
        LOG.error("Repartitioned fact {} cannot be read, skipped by enrichment {}: {}", where(), spec.name(),
            e.getMessage());
        return;
      }
    } else if (facts.decode(record.value()) instanceof FactDecoder.Accepted a) {
      fact = a.fact(); // repartitioned as it was sent, by an earlier release
    } else {
      return;
    }
    enricher.onFact(fact, record.key(), now, emit); // keyed by FactKeyProcessor: the business key's bytes
  }

  /** {@code where}: the record's place when it was not delivered by the source, whose metadata says it otherwise. */
  private void onVersionRecord(byte[] key, byte[] value, String where, long now) {
    VersionChange change;
    try {
      change = versions.decodeChange(key, framed ? io.dimstream.codec.WireFraming.unframe(value) : value);
    } catch (IllegalArgumentException e) {
      // the dimension's own output: a record it cannot read is a bug or a foreign writer, not a fact to reject
      LOG.error("Versions record {} cannot be read, skipped by enrichment {}: {}", where == null ? where() : where,
          spec.name(), e.getMessage());
      return;
    }
    enricher.onVersionChange(change, now, emit);
  }

  /**
   * Applies the versions of this task's partition of the versions topic written before the store started; here, at
   * the first record or tick, rather than in {@link #init}, because its writes go to the store's changelog and facts
   * it corrects are forwarded, neither of which a processor may do before it processes.
   */
  private void fill(long now) {
    VersionsFill.fill(spec, context.taskId().partition(), context.appConfigs(), versionsStore,
        (key, value, where) -> onVersionRecord(key, value, where, now));
    unfilled = false;
  }

  private void emit(Enriched e) {
    context.forward(new Record<>(rows.key(e), avro == null ? rows.value(e) : avro.value(e), timestamp));
  }

  private String where() {
    return context.recordMetadata().map(m -> m.topic() + "/" + m.partition() + "@" + m.offset()).orElse("?");
  }
}
