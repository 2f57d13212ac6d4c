package io.dimstream.enrich.streams;

import io.dimstream.enrich.EnrichmentSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives an enrichment's versions store, found empty on a task, the versions its partition of the dimension's versions
 * topic held before it. Every enrichment of a service reads that topic through one source node, which resumes where
 * the application last committed: an enrichment added to a service that already ran (or renamed) would otherwise know
 * only the versions written after it started, and enrich the facts of every existing key as not found.
 *
 * <p>The partition is read from its beginning up to its end at that moment (read_committed; it is compacted: one
 * record per version). The source then delivers again the records past the application's position: applying a
 * version change again is harmless, the enricher keeps one version per (key, valid_from), the last one applied, and
 * the newest sequence as a maximum, so the state ends as the whole topic applied in order; only a key whose versions
 * past some time were all retracted and compacted away may be left with an older newest sequence, which keeps its
 * facts (and makes them wait) a little longer and joins them the same. The writes go to the
 * store, so to its changelog in the task's transaction; a mark in the store keeps a restart from filling it again.
 * Not filled with the application's position still at the partition's start, a store gets the same versions from the
 * source; the fill reads them once more, which costs time only.
 */
final class VersionsFill {
  /** The mark of a filled store: no key the enricher writes starts with {@code 'h'}. */
  static final Bytes FILLED = Bytes.wrap(new byte[] {'h'});
  private static final Logger LOG = LoggerFactory.getLogger(VersionsFill.class);
  private static final Duration POLL = Duration.ofMillis(500);

  /** One record of the versions topic, with where it was read (topic/partition@offset), for log lines. */
  interface VersionRecords {
    void apply(byte[] key, byte[] value, String where);
  }

  private VersionsFill() {}

  /** Whether {@code store} holds nothing yet, not even the mark of a fill. */
  static boolean needed(KeyValueStore<Bytes, byte[]> store) {
    try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
      return !it.hasNext();
    }
  }

  /**
   * Reads {@code partition} of the dimension's versions topic from its beginning to its current end into {@code to},
   * then marks {@code store} as filled.
   *
   * @param appConfigs the task's Streams properties: bootstrap servers, security settings, client overrides
   * @throws VersionsFillException when the brokers cannot be reached or the partition cannot be read
   */
  static void fill(EnrichmentSpec spec, int partition, Map<String, Object> appConfigs,
      KeyValueStore<Bytes, byte[]> store, VersionRecords to) {
    String topic = spec.dimension().topics().versions();
    TopicPartition tp = new TopicPartition(topic, partition);
    long started = System.nanoTime();
    long read = 0;
    Map<String, Object> config = new StreamsConfig(appConfigs)
        .getRestoreConsumerConfigs("enrich-" + spec.name() + "-fill-" + partition);
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL).records(tp)) {
          if (r.offset() >= end) {
            break;
          }
          if (io.dimstream.topology.EventRecordHeaders.isEvent(r.headers())) {
            continue; // the event store's writes, kept for the table, not versions
          }
          to.apply(r.key(), r.value(), topic + "/" + partition + "@" + r.offset());
          read++;
        }
      }
    } catch (KafkaException e) {
      throw new VersionsFillException("enrichment " + spec.name() + " cannot read partition " + partition + " of "
          + topic + " before its first record, so it would enrich facts without the versions written before it: "
          + e.getMessage() + ". Fix: check that the brokers are reachable with the service's Kafka settings; the task"
          + " reads it again when its stream thread restarts", e);
    }
    store.put(FILLED, new byte[0]);
    LOG.info("Enrichment {}: read {} versions of {}/{} written before it, in {} ms", spec.name(), read, topic,
        partition, (System.nanoTime() - started) / 1_000_000);
  }
}
