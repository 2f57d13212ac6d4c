package io.dimstream.chaos;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.model.ChangeEvent;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The run's input: a seeded generated change stream (late, duplicate, delete and no-change events; no two events of
 * a key share a sequence, so the fold does not depend on the order the partitions are read in) with a few
 * malformed records mixed in, sent at a steady rate with {@code acks=all} and idempotence. It remembers which
 * records the brokers acknowledged: the checker folds exactly those.
 */
final class Workload {
  /** A record that is not JSON: the service must dead-letter it and carry on. */
  static final byte[] BAD_RECORD = "{\"customer_id\": 1, \"name\": \"cut".getBytes(StandardCharsets.UTF_8);

  private final List<ChangeEvent> events;
  private final List<byte[]> values;
  /** Per record: the index of its event, or -1 for a malformed record. */
  private final int[] eventOf;
  private final boolean[] acked;
  private final AtomicLong ackedCount = new AtomicLong();
  private final AtomicLong sentCount = new AtomicLong();
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final int badRecords;

  Workload(DimensionSpec spec, long seed, int events, int keys, double badShare) {
    ChangeStreams.GeneratedStream s = ChangeStreams.random(spec, seed).keys(keys).events(events).sameSequence(0)
        .late(0.05).duplicates(0.03).deletes(0.02).noChange(0.05).generate();
    this.events = s.events();
    Random r = new Random(seed ^ 0x5DEECE66DL);
    List<byte[]> v = new ArrayList<>();
    List<Integer> of = new ArrayList<>();
    int bad = 0;
    List<byte[]> good = s.values();
    for (int i = 0; i < good.size(); i++) {
      if (r.nextDouble() < badShare) {
        v.add(BAD_RECORD);
        of.add(-1);
        bad++;
      }
      v.add(good.get(i));
      of.add(i);
    }
    this.values = v;
    this.eventOf = of.stream().mapToInt(Integer::intValue).toArray();
    this.acked = new boolean[v.size()];
    this.badRecords = bad;
  }

  int records() {
    return values.size();
  }

  /**
   * Sends every record to {@code topic} at {@code rate} records/s (later ones catch up when the producer was
   * blocked), then waits for every acknowledgement. A record the producer gave up on is not acknowledged.
   */
  void send(Map<String, Object> kafka, String topic, double rate) throws InterruptedException {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // A broker failover takes seconds; the producer waits it out rather than give up on a record.
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "600000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "600000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < values.size(); i++) {
        long wait = start + (long) (i * 1e9 / rate) - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        int index = i;
        producer.send(new ProducerRecord<>(topic, null, System.currentTimeMillis(), null, values.get(i)),
            (md, e) -> {
              if (e == null) {
                acked[index] = true;
                ackedCount.incrementAndGet();
              } else {
                failure.compareAndSet(null, e);
              }
            });
        sentCount.incrementAndGet();
      }
      producer.flush();
    }
  }

  long sent() {
    return sentCount.get();
  }

  long acknowledged() {
    return ackedCount.get();
  }

  /** The first send the producer gave up on, or null. */
  Exception failure() {
    return failure.get();
  }

  /** The events of the acknowledged records, in the order they were sent. */
  synchronized List<ChangeEvent> acknowledgedEvents() {
    List<ChangeEvent> out = new ArrayList<>();
    for (int i = 0; i < eventOf.length; i++) {
      if (acked[i] && eventOf[i] >= 0) {
        out.add(events.get(eventOf[i]));
      }
    }
    return out;
  }

  /** How many malformed records the brokers acknowledged: the dead-letter topic must hold exactly these. */
  synchronized long acknowledgedBadRecords() {
    long n = 0;
    for (int i = 0; i < eventOf.length; i++) {
      if (acked[i] && eventOf[i] < 0) {
        n++;
      }
    }
    return n;
  }

  int badRecords() {
    return badRecords;
  }
}
