package io.dimstream.compactor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends a versions-topic record the table cannot take to the dead-letter topic, unchanged, with headers naming the
 * reason and where it was read; the producer is opened on the first dead letter only.
 */
final class VersionDeadLetters implements AutoCloseable {
  /** Reason code of a versions-topic record the compactor could not apply. */
  static final String REASON = "bad-version-record";
  static final String ERROR_HEADER = "dimstream.error";
  static final String DETAIL_HEADER = "dimstream.error.detail";
  /** Headers naming where the record was read: topic, partition and offset. */
  static final String TOPIC_HEADER = "dimstream.source.topic";
  static final String PARTITION_HEADER = "dimstream.source.partition";
  static final String OFFSET_HEADER = "dimstream.source.offset";
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(60);

  private final String topic;
  private final Map<String, Object> kafka;
  private final int maxRequestBytes;
  private KafkaProducer<byte[], byte[]> producer;
  private long sent;

  VersionDeadLetters(String topic, Map<String, Object> kafka, int maxRequestBytes) {
    this.topic = topic;
    this.kafka = kafka;
    this.maxRequestBytes = maxRequestBytes;
  }

  /**
   * Sends the record and waits for the broker's acknowledgement, so that the table never records an offset whose
   * record is neither in the table nor on the dead-letter topic.
   *
   * @throws CompactorException when the dead-letter topic does not take it
   */
  void send(ConsumerRecord<byte[], byte[]> r, String detail) {
    Headers headers = new RecordHeaders(r.headers().toArray());
    headers.remove(ERROR_HEADER);
    headers.remove(DETAIL_HEADER);
    headers.add(ERROR_HEADER, REASON.getBytes(StandardCharsets.UTF_8));
    headers.add(DETAIL_HEADER, detail.getBytes(StandardCharsets.UTF_8));
    headers.add(TOPIC_HEADER, r.topic().getBytes(StandardCharsets.UTF_8));
    headers.add(PARTITION_HEADER, Integer.toString(r.partition()).getBytes(StandardCharsets.UTF_8));
    headers.add(OFFSET_HEADER, Long.toString(r.offset()).getBytes(StandardCharsets.UTF_8));
    try {
      producer().send(new ProducerRecord<>(topic, null, r.timestamp(), r.key(), r.value(), headers))
          .get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      sent++;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CompactorErrors.deadLetterFailed(r.topic(), r.partition(), r.offset(), topic, e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      throw CompactorErrors.deadLetterFailed(r.topic(), r.partition(), r.offset(), topic,
          e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e);
    }
  }

  long sent() {
    return sent;
  }

  private KafkaProducer<byte[], byte[]> producer() {
    if (producer == null) {
      Properties p = new Properties();
      p.putAll(kafka);
      p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRequestBytes);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      producer = new KafkaProducer<>(p);
    }
    return producer;
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(10));
    }
  }
}
