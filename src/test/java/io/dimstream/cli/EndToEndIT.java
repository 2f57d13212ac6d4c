package io.dimstream.cli;

import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole streaming path against a real broker: change file -> changes topic -> topology -> versions topic ->
 * compactor -> Delta table, read back by Delta Kernel and compared with the reference fold.
 */
class EndToEndIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  static final String BROKEN_JSON = "{\"customer_id\": 7, \"city\": \"Oslo\"";
  static final String MISSING_KEY = "{\"city\": \"Oslo\", \"updated_at\": \"2026-01-02T00:00:00Z\"}";

  @TempDir
  Path dir;

  /** The example customers spec, renamed so each test has its own topics, run under {@code dir}. */
  static DimensionSpec spec(String name, Path dir) throws Exception {
    return ExampleSpec.customers(dir, name, "");
  }

  /** 20k events on 2k keys with late, duplicate, no-change, delete and re-insert events, plus two bad records. */
  static ChangeStreams.GeneratedStream stream(DimensionSpec spec) {
    return ChangeStreams.random(spec, 20_261_129L).keys(2_000).events(20_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
  }

  static Path writeInput(ChangeStreams.GeneratedStream stream, Path file) throws Exception {
    List<String> lines = new ArrayList<>(stream.jsonLines());
    lines.add(5_000, BROKEN_JSON);
    lines.add(15_000, MISSING_KEY);
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  static List<Version> sorted(List<Version> rows) {
    List<Version> out = new ArrayList<>(rows);
    out.sort(io.dimstream.model.BusinessKeys.VERSION_ORDER);
    return out;
  }

  @Test
  void shouldBuildTheReferenceHistoryFromAChangeStream() throws Exception {
    DimensionSpec spec = spec("customers_e2e", dir);
    ChangeStreams.GeneratedStream stream = stream(spec);
    Path input = writeInput(stream, dir.resolve("changes.jsonl"));
    List<Version> expected = Scd2Fold.fold(spec, stream.events());

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(20_002);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(4));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();

      List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept();
      assertThat(dead).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
          .containsExactlyInAnyOrder(BROKEN_JSON, MISSING_KEY);
      assertThat(dead).extracting(r -> new String(r.headers().lastHeader("dimstream.error").value(), StandardCharsets.UTF_8))
          .containsExactlyInAnyOrder("malformed-json", "missing-key");
      assertThat(service.metrics().lateEventsSpliced()).isPositive();
    }

    assertThat(sorted(KernelReader.latest(dir.resolve("table"), spec))).containsExactlyElementsOf(expected);
    try (Stream<Version> ours = DeltaTable.open(dir.resolve("table")).latest().scan()) {
      assertThat(sorted(ours.toList())).containsExactlyElementsOf(expected);
    }

    // The same file through backfill (no Kafka) gives the same table rows.
    Path backfilled = dir.resolve("backfilled");
    int code = Main.commandLine().execute("backfill", "--config", spec.source().toString(), "--input", input.toString(),
        "--table", backfilled.toString());
    assertThat(code).isZero();
    assertThat(sorted(KernelReader.latest(backfilled, spec))).containsExactlyElementsOf(expected);
  }
}
