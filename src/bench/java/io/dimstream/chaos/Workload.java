package io.dimstream.chaos;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.model.ChangeEvent;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
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
 *
 * <p>A record the producer gives up on (its delivery time-out passed) is sent again: Kafka's producer has been seen
 * to hold one batch of a partition, unsent or unanswered, until its delivery time-out while every later batch of
 * that partition went through, and the run must not wait on it for long nor count its records as never sent. Sending
 * a record again may write it twice when the first attempt did reach the broker; a change event twice is a duplicate
 * the service must absorb anyway, and the checker counts the malformed records on the changes topic, not the sends.
 */
final class Workload {
  /** How long the producer tries one record before giving up on it, by default: a broker failover takes seconds. */
  static final int DELIVERY_TIMEOUT_MS = 120_000;
  /** How long the producer waits for the answer to one request. */
  static final int REQUEST_TIMEOUT_MS = 15_000;
  static final int LINGER_MS = 5;
  /** How often a record the producer gave up on is sent again before the run fails. */
  static final int MAX_RESENDS = 5;

  /** A record that is not JSON: the service must dead-letter it and carry on. */
  static final byte[] BAD_RECORD = "{\"customer_id\": 1, \"name\": \"cut".getBytes(StandardCharsets.UTF_8);

  private final List<ChangeEvent> events;
  private final List<byte[]> values;
  /** Per record: the index of its event, or -1 for a malformed record. */
  private final int[] eventOf;
  private final boolean[] acked;
  private final AtomicLong ackedCount = new AtomicLong();
  private final AtomicLong sentCount = new AtomicLong();
  private final AtomicLong resentCount = new AtomicLong();
  /** Records the producer gave up on and that were not sent again yet. */
  private final Queue<Integer> givenUp = new ConcurrentLinkedQueue<>();
  private final AtomicIntegerArray attempts;
  /** Written and read on the producer's I/O thread only. */
  private String lastGiveUp;
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
    this.attempts = new AtomicIntegerArray(v.size());
    this.badRecords = bad;
  }

  int records() {
    return values.size();
  }

  /**
   * Sends every record to {@code topic} at {@code rate} records/s (later ones catch up when the producer was
   * blocked), sends again what the producer gave up on, then waits for every acknowledgement. A record still not
   * acknowledged after {@link #MAX_RESENDS} more attempts is the run's {@link #failure()}.
   */
  void send(Map<String, Object> kafka, String topic, double rate, int deliveryTimeoutMs) throws InterruptedException {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(LINGER_MS));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(deliveryTimeoutMs));
    // the producer refuses a delivery time-out shorter than linger + request time-out
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(Math.min(REQUEST_TIMEOUT_MS,
        deliveryTimeoutMs - LINGER_MS)));
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
        sendAgainWhatWasGivenUp(producer, topic);
        sendOne(producer, topic, i);
        sentCount.incrementAndGet();
      }
      producer.flush();
      // flush() returns once every send has its outcome: what was given up on is in the queue by then
      while (!givenUp.isEmpty()) {
        sendAgainWhatWasGivenUp(producer, topic);
        producer.flush();
      }
    }
  }

  private void sendOne(KafkaProducer<byte[], byte[]> producer, String topic, int index) {
    int attempt = attempts.incrementAndGet(index);
    producer.send(new ProducerRecord<>(topic, null, System.currentTimeMillis(), null, values.get(index)),
        (md, e) -> {
          if (e == null) {
            acked[index] = true;
            ackedCount.incrementAndGet();
          } else if (attempt > MAX_RESENDS) {
            failure.compareAndSet(null, e);
          } else {
            // one line per batch: its records share the exception
            if (!String.valueOf(e.getMessage()).equals(lastGiveUp)) {
              lastGiveUp = String.valueOf(e.getMessage());
              System.err.println("bench/chaos: the producer gave up (" + lastGiveUp + "); sending again");
            }
            givenUp.add(index);
          }
        });
  }

  private void sendAgainWhatWasGivenUp(KafkaProducer<byte[], byte[]> producer, String topic) {
    for (Integer index = givenUp.poll(); index != null; index = givenUp.poll()) {
      resentCount.incrementAndGet();
      sendOne(producer, topic, index);
    }
  }

  long sent() {
    return sentCount.get();
  }

  /** Sends of records the producer had given up on. */
  long resent() {
    return resentCount.get();
  }

  long acknowledged() {
    return ackedCount.get();
  }

  /** Why a record was not acknowledged after all its attempts, or null. */
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
