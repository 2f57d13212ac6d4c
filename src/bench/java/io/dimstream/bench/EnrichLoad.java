package io.dimstream.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The enrichment benchmark's input, the same for dimstream and the baseline: orders (facts, keyed by order id) and
 * changes of the example customers dimension (keyed by customer id), ten orders to one change, interleaved in one
 * producer. Every record's timestamp is its event time (the order's {@code ordered_at}, the change's
 * {@code updated_at}): the versioned-store join looks versions up by record timestamp, dimstream by the column.
 * Paced, the event time is the send time (so produce → visible latency is visible time minus record timestamp);
 * unpaced, event times are spaced as at 2,000 orders/s from a start in the past. 5 % of the changes are late (1 to
 * 30 s before their neighbours), 1 % delete the customer. The choices come from a seeded generator: both apps get
 * the same sequence.
 */
final class EnrichLoad {
  static final int FACTS_PER_CHANGE = 10;
  private static final String[] CITIES = {"Lisbon", "Oslo", "Lyon", "Graz", "Turku", "Porto", "Bern", "Gent"};
  private static final String[] TIERS = {"bronze", "silver", "gold"};

  private EnrichLoad() {}

  /** Where the two streams go. */
  record Topics(String facts, String changes) {}

  /** What a send took: nanos at the first send and after the last acknowledgement. */
  record Sent(int facts, int changes, long startNanos, long endNanos) {}

  /** One version per customer {@code 1..keys}, at {@code atMillis}: the dimension before the run. */
  static void snapshot(Map<String, Object> kafka, Topics topics, int keys, long atMillis, long seed)
      throws Exception {
    Random r = new Random(seed);
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka, false)) {
      AtomicReference<Exception> failed = new AtomicReference<>();
      for (long c = 1; c <= keys; c++) {
        send(producer, topics.changes(), key(c), change(c, r, atMillis, false), atMillis, failed);
      }
      producer.flush();
      check(failed);
    }
  }

  /**
   * Sends {@code facts} orders and one change per {@link #FACTS_PER_CHANGE} of them; {@code rate} orders/s (the
   * changes at a tenth of it), 0 for as fast as the producer goes, with event times from {@code unpacedStartMillis}.
   */
  static Sent send(Map<String, Object> kafka, Topics topics, int facts, int keys, long rate, long seed,
      long unpacedStartMillis) throws Exception {
    Random r = new Random(seed);
    int perGroup = FACTS_PER_CHANGE + 1;
    int total = facts + facts / FACTS_PER_CHANGE;
    double recordsPerSecond = (rate > 0 ? rate : 2_000) * (double) perGroup / FACTS_PER_CHANGE;
    AtomicReference<Exception> failed = new AtomicReference<>();
    int sentFacts = 0;
    int sentChanges = 0;
    long start = System.nanoTime();
    long startMillis = System.currentTimeMillis();
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka, rate > 0)) {
      for (int i = 0; i < total; i++) {
        long offsetMillis = (long) (i * 1000.0 / recordsPerSecond);
        long eventMillis;
        if (rate > 0) {
          long wait = start + offsetMillis * 1_000_000L - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
          eventMillis = Math.max(System.currentTimeMillis(), startMillis + offsetMillis);
        } else {
          eventMillis = unpacedStartMillis + offsetMillis;
        }
        long customer = 1 + r.nextInt(keys);
        if (i % perGroup == FACTS_PER_CHANGE) {
          long t = r.nextDouble() < 0.05 ? eventMillis - 1_000 - r.nextInt(29_000) : eventMillis;
          boolean delete = r.nextDouble() < 0.01;
          send(producer, topics.changes(), key(customer), change(customer, r, t, delete), t, failed);
          sentChanges++;
        } else {
          long order = ++sentFacts;
          byte[] value = ("{\"order_id\":" + order + ",\"customer_id\":" + customer + ",\"ordered_at\":\""
              + Instant.ofEpochMilli(eventMillis) + "\",\"amount\":" + (order % 10_000) / 100.0 + "}")
              .getBytes(StandardCharsets.UTF_8);
          send(producer, topics.facts(), key(order), value, eventMillis, failed);
        }
      }
      producer.flush();
    }
    check(failed);
    return new Sent(sentFacts, sentChanges, start, System.nanoTime());
  }

  private static byte[] change(long customer, Random r, long atMillis, boolean delete) {
    return ("{\"customer_id\":" + customer + ",\"name\":\"Customer " + customer + "\",\"email\":\"c" + customer
        + "@example.com\",\"city\":\"" + CITIES[r.nextInt(CITIES.length)] + "\",\"tier\":\""
        + TIERS[r.nextInt(TIERS.length)] + "\",\"updated_at\":\"" + Instant.ofEpochMilli(atMillis) + "\",\"op\":\""
        + (delete ? "d" : "u") + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] key(long id) {
    return Long.toString(id).getBytes(StandardCharsets.UTF_8);
  }

  private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> kafka, boolean paced) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // paced: each record at once, as an application would send it; unpaced: batched like a bulk load
    p.put(ProducerConfig.LINGER_MS_CONFIG, paced ? "0" : "10");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(p);
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, byte[] key, byte[] value,
      long timestamp, AtomicReference<Exception> failed) {
    producer.send(new ProducerRecord<>(topic, null, timestamp, key, value), (md, e) -> {
      if (e != null) {
        failed.compareAndSet(null, e);
      }
    });
  }

  private static void check(AtomicReference<Exception> failed) throws Exception {
    if (failed.get() != null) {
      throw failed.get();
    }
  }
}
