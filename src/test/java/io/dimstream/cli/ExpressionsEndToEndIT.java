package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.batch.ExpressionPathsTest;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.change.RejectReason;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.KernelReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example spec with expressions on the service, against a real broker: derived attributes, a skipped event, a
 * condition delete and an {@code expression-error} dead letter, down to the Delta table read back by Delta Kernel.
 */
class ExpressionsEndToEndIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldWriteDerivedAttributesToTheTableAndTheFailingEventToTheDlq() throws Exception {
    Path file = dir.resolve("orders_e2e.yaml");
    Files.writeString(file, Files.readString(Path.of("examples/orders-derived.yaml"))
        .replaceFirst("(?m)^name: orders", "name: orders_e2e")
        + "service:\n  data_dir: " + dir.resolve("data") + "\n  table_path: " + dir.resolve("table")
        + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n");
    DimensionSpec spec = DimensionSpecLoader.load(file);

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, Path.of("examples/orders-changes.jsonl"), service.kafka()))
          .isEqualTo(ExpressionPathsTest.EVENTS.size());
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();

      List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept();
      assertThat(dead).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
          .containsExactly(ExpressionPathsTest.NULL_AMOUNT);
      assertThat(dead).extracting(r -> new String(r.headers().lastHeader("dimstream.error").value(),
          StandardCharsets.UTF_8)).containsExactly(RejectReason.EXPRESSION_ERROR);
    }

    assertThat(EndToEndIT.sorted(KernelReader.latest(dir.resolve("table"), spec)))
        .containsExactlyElementsOf(ExpressionPathsTest.EXPECTED);
  }
}
