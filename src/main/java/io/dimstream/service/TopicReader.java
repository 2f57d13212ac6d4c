package io.dimstream.service;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a whole topic once (read_committed), for summaries and catch-up checks. */
public final class TopicReader {
  private TopicReader() {}

  /** What a full read of a topic found. */
  public record Contents(long records, Map<Integer, Long> lastOffsets, List<ConsumerRecord<byte[], byte[]>> kept) {}

  /**
   * Reads {@code topic} from the beginning to its current end.
   *
   * @param keep whether to keep the records (for small topics such as the DLQ), or only count them
   */
  public static Contents readAll(Map<String, Object> kafka, String topic, boolean keep) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long count = 0;
    Map<Integer, Long> last = new HashMap<>();
    List<ConsumerRecord<byte[], byte[]>> kept = new java.util.ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
      long deadline = System.currentTimeMillis() + 120_000;
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.currentTimeMillis() > deadline) {
          throw ServiceErrors.topicReadTimedOut(topic);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          count++;
          last.merge(r.partition(), r.offset(), Math::max);
          if (keep) {
            kept.add(r);
          }
        }
      }
    }
    return new Contents(count, last, kept);
  }
}
