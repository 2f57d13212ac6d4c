package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** The Streams handlers dead-letter the change record behind a failure and let the thread move on. */
class DeadLetterHandlersTest {
  static final Map<String, String> CONFIG = Map.of(DeadLetterHandlers.DLQ_TOPIC_CONFIG, "items.dlq",
      DeadLetterHandlers.OUTPUT_LIMIT_CONFIG, "1000000");
  static final byte[] KEY = "k1".getBytes(StandardCharsets.UTF_8);
  static final byte[] VALUE = "{\"id\":1}".getBytes(StandardCharsets.UTF_8);

  /** A context as Streams gives it for a record read from {@code topic} with these raw bytes. */
  static ErrorHandlerContext context(String topic, byte[] rawKey, byte[] rawValue) {
    return new ErrorHandlerContext() {
      public String topic() { return topic; }
      public int partition() { return 0; }
      public long offset() { return 42; }
      public Headers headers() { return new RecordHeaders().add("trace", "t1".getBytes(StandardCharsets.UTF_8)); }
      public String processorNodeId() { return "scd2"; }
      public TaskId taskId() { return new TaskId(1, 0); }
      public long timestamp() { return 1_000; }
      public byte[] sourceRawKey() { return rawKey; }
      public byte[] sourceRawValue() { return rawValue; }
    };
  }

  @Test
  void shouldDeadLetterTheOriginalChangeRecordWhenTheBrokerRefusesAnOutputAsTooLarge() {
    var handler = new DeadLetterHandlers.Production();
    handler.configure(CONFIG);
    byte[] envelope = Envelope.accepted(KEY, VALUE).toBytes();
    ProducerRecord<byte[], byte[]> out = new ProducerRecord<>("items.versions", new byte[1], new byte[1]);

    ProductionExceptionHandler.Response r = handler.handleError(
        context("dimstream-items-items-by-key-repartition", new byte[] {9}, envelope), out,
        new RecordTooLargeException("too big"));

    assertThat(r.result()).isEqualTo(ProductionExceptionHandler.Result.RESUME);
    ProducerRecord<byte[], byte[]> dead = r.deadLetterQueueRecords().get(0);
    assertThat(dead.topic()).isEqualTo("items.dlq");
    assertThat(dead.key()).isEqualTo(KEY);
    assertThat(dead.value()).isEqualTo(VALUE);
    assertThat(header(dead, "dimstream.error")).isEqualTo("too-large");
    assertThat(header(dead, "trace")).isEqualTo("t1");
  }

  @Test
  void shouldStillFailOnAnErrorThatIsNotAboutOneRecord() {
    var handler = new DeadLetterHandlers.Production();
    handler.configure(CONFIG);

    ProductionExceptionHandler.Response r = handler.handleError(context("items.changes", KEY, VALUE),
        new ProducerRecord<>("items.versions", new byte[1], new byte[1]), new TopicAuthorizationException("no"));

    assertThat(r.result()).isEqualTo(ProductionExceptionHandler.Result.FAIL);
    assertThat(r.deadLetterQueueRecords()).isEmpty();
  }

  @Test
  void shouldDeadLetterARecordWhoseProcessingThrowsAsAProcessingError() {
    var handler = new DeadLetterHandlers.Processing();
    handler.configure(CONFIG);

    ProcessingExceptionHandler.Response r = handler.handleError(context("items.changes", KEY, VALUE),
        new Record<>(KEY, VALUE, 1_000), new IllegalStateException("boom"));

    assertThat(r.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
    List<ProducerRecord<byte[], byte[]>> dead = r.deadLetterQueueRecords();
    assertThat(dead).singleElement().satisfies(d -> {
      assertThat(d.value()).isEqualTo(VALUE);
      assertThat(header(d, "dimstream.error")).isEqualTo("processing-error");
      assertThat(header(d, "dimstream.error.detail")).contains("boom", "scd2");
    });
  }

  @Test
  void shouldStopTheThreadRatherThanDeadLetterARecordWhenTheProcessorLacksItsState() {
    var handler = new DeadLetterHandlers.Processing();
    handler.configure(CONFIG);

    ProcessingExceptionHandler.Response r = handler.handleError(context("items.versions", KEY, VALUE),
        new Record<>(KEY, VALUE, 1_000), new IllegalStateException("wrapped",
            new ThreadStoppingException("cannot read the history", new RuntimeException("timeout"))));

    assertThat(r.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
    assertThat(r.deadLetterQueueRecords()).isEmpty();
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
