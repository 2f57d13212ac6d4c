package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The compactor against a real broker. */
class CompactorIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldGiveUpOnAMissingVersionsTopicWhenItsClockSaysTheWaitIsOver() {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    Map<String, Object> kafka = new HashMap<>(KAFKA.clientProperties());
    kafka.put("allow.auto.create.topics", "false"); // the topic must stay missing
    // Each reading of this clock is 20 s later: the 60 s wait is over after a few polls, not a minute of real time.
    Compactor compactor = new Compactor(spec, DeltaTable.create(dir.resolve("table"), spec, Map.of()), (k, v) -> null, kafka,
        "test-owner", new SteppingClock(Instant.parse("2026-03-01T00:00:00Z"), Duration.ofSeconds(20)));

    long started = System.nanoTime();
    assertThatThrownBy(compactor::run)
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("The versions topic '" + spec.topics().versions() + "' does not exist after 60 s")
        .hasMessageContaining("dimstream run");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    assertThat(compactor.failure()).isInstanceOf(CompactorException.class);
  }

  @Test
  void shouldWaitForBrokersItCannotReachAtStartAndReadOnceTheyAnswer() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Map<String, Object> kafka = new HashMap<>();
    kafka.put("bootstrap.servers", "127.0.0.1:" + port);
    // each reading of this clock is 20 s later: were an unreachable cluster a missing topic, the wait would be over
    Compactor compactor = new Compactor(spec, DeltaTable.create(dir.resolve("table"), spec, Map.of()),
        (k, v) -> null, kafka, "test-owner", new SteppingClock(Instant.parse("2026-03-01T00:00:00Z"), Duration.ofSeconds(20)));
    Thread running = new Thread(compactor, "compactor-under-test");
    running.start();
    try {
      // longer than one metadata request's 10 s time-out, after which the compactor used to stop
      running.join(14_000);
      assertThat(running.isAlive()).as("the compactor still waits for the brokers").isTrue();
      assertThat(compactor.failure()).isNull();

      try (io.dimstream.broker.EmbeddedKafkaBroker broker = io.dimstream.broker.EmbeddedKafkaBroker.start(
          dir.resolve("broker"), port)) {
        io.dimstream.broker.TopicProvisioner.ensure(Map.of("bootstrap.servers", broker.bootstrapServers()), spec);
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (compactor.partitions().isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(200);
        }
        assertThat(compactor.partitions()).as("the versions partitions it reads once the broker answers")
            .containsExactly(0);
        assertThat(compactor.failure()).isNull();
        compactor.stop(Duration.ofSeconds(30));
      }
    } finally {
      compactor.stop(Duration.ofSeconds(30));
      running.join(30_000);
    }
  }

  /** A clock that moves forward by {@code step} each time it is read. */
  private static final class SteppingClock extends Clock {
    private Instant now;
    private final Duration step;

    SteppingClock(Instant start, Duration step) {
      this.now = start;
      this.step = step;
    }

    @Override
    public synchronized Instant instant() {
      Instant t = now;
      now = now.plus(step);
      return t;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
