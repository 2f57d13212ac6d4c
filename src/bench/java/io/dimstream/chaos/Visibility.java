package io.dimstream.chaos;

import io.dimstream.table.DeltaTable;
import io.dimstream.table.Snapshot;
import io.dimstream.topology.EventRecordHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * When each version record became visible in the table. One thread reads the versions topic read_committed and
 * notes every record's partition, offset and timestamp (Kafka Streams gives an output record the timestamp of the
 * change record that caused it: the producer's send time). Another polls the table every {@value #POLL_MS} ms for
 * the offset its {@code txn} action records per versions partition. A record is visible from the first poll whose
 * recorded offset of its partition reaches it; its latency is that time minus its timestamp.
 */
final class Visibility implements AutoCloseable {
  static final long POLL_MS = 500;
  private final Map<String, Object> kafka;
  private final String topic;
  private final String appIdPrefix;
  private final Supplier<DeltaTable> table;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();
  // versions records: partition, offset, timestamp
  private int[] partition = new int[1 << 16];
  private long[] offset = new long[1 << 16];
  private long[] timestamp = new long[1 << 16];
  private int count;
  // table polls: time, recorded offset per partition
  private final List<long[]> polls = new ArrayList<>();
  private final List<Long> pollTimes = new ArrayList<>();
  private volatile long tableVersion = -1;
  private volatile long lastTableMove = System.currentTimeMillis();
  private volatile Exception lastPollError;
  private final int partitions;

  Visibility(Map<String, Object> kafka, String versionsTopic, String appIdPrefix, int partitions,
      Supplier<DeltaTable> table) {
    this.kafka = kafka;
    this.topic = versionsTopic;
    this.appIdPrefix = appIdPrefix;
    this.partitions = partitions;
    this.table = table;
  }

  void start() {
    threads.add(new Thread(this::readVersions, "chaos-versions"));
    threads.add(new Thread(this::pollTable, "chaos-table"));
    threads.forEach(Thread::start);
  }

  private void readVersions() {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        parts.add(new TopicPartition(topic, i));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      while (running.get()) {
        var records = c.poll(Duration.ofMillis(200));
        synchronized (this) {
          for (ConsumerRecord<byte[], byte[]> r : records) {
            if (EventRecordHeaders.isEvent(r.headers())) {
              continue; // the event store's writes, which the compactor keeps beside the table: not versions
            }
            if (count == partition.length) {
              partition = Arrays.copyOf(partition, count * 2);
              offset = Arrays.copyOf(offset, count * 2);
              timestamp = Arrays.copyOf(timestamp, count * 2);
            }
            partition[count] = r.partition();
            offset[count] = r.offset();
            timestamp[count++] = r.timestamp();
          }
        }
      }
    }
  }

  private void pollTable() {
    DeltaTable t = null;
    while (running.get()) {
      try {
        if (t == null) {
          t = table.get();
        }
        Snapshot s = t.latest();
        long[] recorded = new long[partitions];
        for (int i = 0; i < partitions; i++) {
          recorded[i] = s.txnVersion(appIdPrefix + i);
        }
        long now = System.currentTimeMillis();
        synchronized (this) {
          polls.add(recorded);
          pollTimes.add(now);
        }
        if (s.version() != tableVersion) {
          tableVersion = s.version();
          lastTableMove = now;
        }
      } catch (Exception e) {
        lastPollError = e; // no table yet, or the store answered badly: try again
      }
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  long tableVersion() {
    return tableVersion;
  }

  Exception lastPollError() {
    return lastPollError;
  }

  /** Per version record seen: its timestamp (epoch ms) and when it became visible (epoch ms, -1 = not yet). */
  synchronized Samples samples() {
    long[] ts = Arrays.copyOf(timestamp, count);
    long[] visible = new long[count];
    for (int i = 0; i < count; i++) {
      visible[i] = firstPollReaching(partition[i], offset[i]);
    }
    return new Samples(ts, visible);
  }

  private long firstPollReaching(int p, long o) {
    int lo = 0;
    int hi = polls.size();
    while (lo < hi) { // recorded offsets only grow: the first poll at or past o
      int mid = (lo + hi) >>> 1;
      if (polls.get(mid)[p] >= o) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo < polls.size() ? pollTimes.get(lo) : -1;
  }

  /** Aligned arrays: a version record's timestamp and the time it became visible in the table. */
  record Samples(long[] producedAt, long[] visibleAt) {}

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      if (t.getName().equals("chaos-table")) {
        t.interrupt(); // a consumer interrupted mid-poll throws; the versions reader ends by itself
      }
      t.join(10_000);
    }
  }
}
