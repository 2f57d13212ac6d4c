package io.dimstream.bench;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Sends generated change records to a topic, as fast as the producer goes or paced at a rate. */
final class Load {
  private Load() {}

  /** What a send took: nanos at the first send and after the last acknowledgement. */
  record Sent(int records, long startNanos, long endNanos) {
    double perSecond() {
      return records * 1e9 / Math.max(1, endNanos - startNanos);
    }
  }

  /** Sends {@code values} (with {@code keys}) to {@code topic}; {@code rate} events/s, 0 for unpaced. */
  static Sent send(Map<String, Object> kafka, String topic, List<byte[]> keys, List<byte[]> values, long rate)
      throws Exception {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // paced: send each record at once, as a CDC source would; unpaced: batch like a bulk load
    p.put(ProducerConfig.LINGER_MS_CONFIG, rate > 0 ? "0" : "10");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    AtomicReference<Exception> failed = new AtomicReference<>();
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < values.size(); i++) {
        if (rate > 0) {
          long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          }
        }
        producer.send(new ProducerRecord<>(topic, keys.get(i), values.get(i)), (md, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          }
        });
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    return new Sent(values.size(), start, System.nanoTime());
  }
}
