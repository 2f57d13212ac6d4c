package io.dimstream.bench;

import io.dimstream.topology.EventRecordHeaders;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads an output topic read_committed from the beginning and notes, per record, when it became visible minus
 * its record timestamp (the producer's CreateTime of the change that caused it; both clocks are this JVM's).
 */
final class OutputWatcher implements Runnable, AutoCloseable {
  private final Map<String, Object> kafka;
  private final String topic;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicBoolean atEnd = new AtomicBoolean();
  private final Map<Integer, Long> lastOffsets = new HashMap<>();
  private volatile Map<Integer, Long> positions = Map.of();
  private final Thread thread;
  /** Which records count (latency, count); every record moves the offsets. */
  private final Predicate<ConsumerRecord<byte[], byte[]>> counted;
  private long[] latencies = new long[1 << 16];
  private long[] produced = new long[1 << 16];
  private int count;
  private long firstSeenNanos = -1;

  private OutputWatcher(Map<String, Object> kafka, String topic, Predicate<ConsumerRecord<byte[], byte[]>> counted) {
    this.kafka = kafka;
    this.topic = topic;
    this.counted = counted;
    this.thread = new Thread(this, "watch-" + topic);
  }

  static OutputWatcher start(Map<String, Object> kafka, String topic) {
    return start(kafka, topic, r -> true);
  }

  /**
   * As above on a dimension's versions topic, counting its version records only: not its event records, the event
   * store's writes, which the compactor keeps beside the table.
   */
  static OutputWatcher startVersions(Map<String, Object> kafka, String topic) {
    return start(kafka, topic, versionRecords(r -> true));
  }

  /** {@code counted}, for version records only (not event records) of a versions topic. */
  static Predicate<ConsumerRecord<byte[], byte[]>> versionRecords(Predicate<ConsumerRecord<byte[], byte[]>> counted) {
    return r -> !EventRecordHeaders.isEvent(r.headers()) && counted.test(r);
  }

  /** As above, counting only the records {@code counted} accepts (an enrichment's first records, say). */
  static OutputWatcher start(Map<String, Object> kafka, String topic,
      Predicate<ConsumerRecord<byte[], byte[]>> counted) {
    OutputWatcher w = new OutputWatcher(kafka, topic, counted);
    w.thread.start();
    return w;
  }

  @Override
  public void run() {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = List.of();
      while (running.get() && parts.isEmpty()) {
        // the topic may not exist yet (a Streams app creates its output on first write)
        parts = c.listTopics(Duration.ofSeconds(10)).getOrDefault(topic, List.of()).stream()
            .map(i -> new TopicPartition(topic, i.partition())).toList();
        if (parts.isEmpty()) {
          sleep(50);
        }
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      while (running.get()) {
        var records = c.poll(Duration.ofMillis(50));
        long now = System.currentTimeMillis();
        synchronized (this) {
          for (ConsumerRecord<byte[], byte[]> r : records) {
            lastOffsets.merge(r.partition(), r.offset(), Math::max);
            if (!counted.test(r)) {
              continue;
            }
            if (firstSeenNanos < 0) {
              firstSeenNanos = System.nanoTime();
            }
            if (count == latencies.length) {
              latencies = Arrays.copyOf(latencies, count * 2);
              produced = Arrays.copyOf(produced, count * 2);
            }
            produced[count] = r.timestamp();
            latencies[count++] = now - r.timestamp();
          }
        }
        // the lag the last fetch response carried (to the last stable offset, read_committed): an endOffsets call
        // here sent a ListOffsets request per poll, broker CPU charged to the app under test
        atEnd.set(parts.stream().allMatch(tp -> c.currentLag(tp).orElse(-1) == 0));
        Map<Integer, Long> at = new HashMap<>();
        for (TopicPartition tp : parts) {
          at.put(tp.partition(), c.position(tp)); // local: the consumer's own fetch position
        }
        positions = at;
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  boolean atEnd() {
    return atEnd.get();
  }

  /**
   * Whether this watcher has read every partition up to the given offsets (the topic's read_committed end offsets,
   * asked once by the caller): exact where {@link #atEnd} only knows the lag of its last fetch, which may predate
   * the transaction that committed the last records.
   */
  boolean reached(Map<Integer, Long> ends) {
    Map<Integer, Long> at = positions;
    return ends.entrySet().stream().allMatch(e -> at.getOrDefault(e.getKey(), -1L) >= e.getValue());
  }

  synchronized int count() {
    return count;
  }

  synchronized long firstSeenNanos() {
    return firstSeenNanos;
  }

  synchronized Map<Integer, Long> lastOffsets() {
    return Map.copyOf(lastOffsets);
  }

  /** Produce → visible latencies in ms, sorted. */
  synchronized long[] latencies() {
    long[] out = Arrays.copyOf(latencies, count);
    Arrays.sort(out);
    return out;
  }

  /** Per output record in the order seen: its record timestamp (the change's produce time), epoch ms. */
  synchronized long[] producedAt() {
    return Arrays.copyOf(produced, count);
  }

  /** Per output record in the order seen: produce → visible latency in ms (unsorted, aligned with producedAt). */
  synchronized long[] latenciesInOrder() {
    return Arrays.copyOf(latencies, count);
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join();
  }
}
