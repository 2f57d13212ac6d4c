package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dimstream.broker.EmbeddedKafkaBroker;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The service started before its Kafka cluster: it says what it waits for and why, comes up when the broker does,
 * and with a limit ({@code service.kafka_wait}) gives up with the reason and the fix.
 */
class KafkaWaitIT {
  @TempDir
  Path dir;

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger waitLog = (Logger) LoggerFactory.getLogger(KafkaWait.class);

  @BeforeEach
  void listen() {
    logged.start();
    waitLog.addAppender(logged);
  }

  @AfterEach
  void stopListening() {
    waitLog.detachAppender(logged);
  }

  @Test
  void shouldWaitForABrokerStartedAfterTheServiceAndThenApplyChanges() throws Exception {
    int port = freePort();
    String bootstrap = "127.0.0.1:" + port;
    DimensionSpec spec = ExampleSpec.customers(dir, "late_broker", "");
    FutureTask<DimensionService> starting = new FutureTask<>(() -> DimensionService.start(spec, bootstrap));
    new Thread(starting, "starting-" + spec.name()).start();
    awaitLogged("Waiting for Kafka at " + bootstrap, Duration.ofSeconds(30), starting);
    assertThat(starting).as("the service waits instead of failing").isNotDone();
    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("Waiting for Kafka at " + bootstrap + ": "
        + bootstrap + ": Connection refused").contains("waiting as long as it takes (service.kafka_wait)"));

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir.resolve("broker"), port);
        DimensionService service = starting.get(3, TimeUnit.MINUTES)) {
      try (KafkaProducer<byte[], byte[]> producer = producer(broker.bootstrapServers())) {
        producer.send(new ProducerRecord<>(spec.topics().changes(), null, ("{\"customer_id\":7,\"name\":\"Ada\","
            + "\"email\":\"ada@example.com\",\"city\":\"Oslo\",\"tier\":\"gold\",\"updated_at\":"
            + "\"2026-01-01T00:00:00Z\",\"op\":\"c\"}").getBytes(StandardCharsets.UTF_8))).get();
      }
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the changes topic").isTrue();
      int name = spec.attributeColumns().stream().map(c -> c.name()).toList().indexOf("name");
      List<Version> current = KernelReader.latest(dir.resolve("table"), spec).stream()
          .filter(v -> v.validTo() == null).toList();
      assertThat(current).singleElement().satisfies(v -> {
        assertThat(v.key().values().get(0)).isEqualTo(7L);
        assertThat(v.attributes().get(name)).isEqualTo("Ada");
      });
      assertThat(messages()).anySatisfy(m -> assertThat(m).contains("Kafka at " + bootstrap
          + " accepts connections after"));
    }
  }

  @Test
  void shouldGiveUpAfterTheConfiguredWaitWithTheReasonAndTheFix() throws Exception {
    String bootstrap = "127.0.0.1:" + freePort();
    DimensionSpec spec = ExampleSpec.customers(dir, "no_broker", "  kafka_wait: 3s\n");
    assertThat(spec.service().kafkaWait()).isEqualTo(Duration.ofSeconds(3));
    long started = System.nanoTime();

    assertThatThrownBy(() -> DimensionService.start(spec, bootstrap))
        .isInstanceOf(ServiceException.class)
        .hasMessageContaining("Kafka at " + bootstrap + " did not answer within 3 s (service.kafka_wait)")
        .hasMessageContaining("Connection refused")
        .hasMessageContaining("Fix: start the brokers");

    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertThat(seconds).as("gave up after the wait, not at once nor after Kafka's own timeouts").isBetween(3L, 20L);
    assertThat(messages()).anySatisfy(m -> assertThat(m).contains("giving up after 3 s (service.kafka_wait)"));
  }

  private List<String> messages() {
    synchronized (logged.list) {
      return logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }

  private void awaitLogged(String text, Duration timeout, FutureTask<DimensionService> starting) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (starting.isDone()) {
        starting.get(); // throws what ended the start
        throw new AssertionError("the service started without a broker");
      }
      if (messages().stream().anyMatch(m -> m.contains(text))) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no log line with '" + text + "' within " + timeout + "; logged: " + messages());
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(p);
  }
}
