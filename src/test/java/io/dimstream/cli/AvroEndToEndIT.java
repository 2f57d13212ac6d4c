package io.dimstream.cli;

import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionAvro;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.InputFormat;
import io.dimstream.spec.OutputFormat;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.EventRecordHeaders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streaming path with Avro at both ends: a JSON change file produced as Avro ({@code format: avro}) -> topology
 * -> Avro version records ({@code versions_format: avro}) -> compactor -> Delta table, read back by Delta Kernel and
 * compared with the reference fold.
 */
class AvroEndToEndIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  /** examples/customers-avro.yaml, renamed, with Avro version records, run under {@code dir}. */
  private DimensionSpec avroSpec(String name) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers-avro.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        .replaceFirst("(?m)^schema: \\S+", "schema: " + Path.of("schemas/customers-change.avsc").toAbsolutePath())
        + "\nversions_format: avro\nservice:\n  data_dir: " + dir.resolve("data") + "\n  table_path: "
        + dir.resolve("table") + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n";
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  @Test
  void shouldBuildTheReferenceHistoryFromAvroChangesThroughAvroVersionRecords() throws Exception {
    DimensionSpec spec = avroSpec("customers_avro_e2e");
    assertThat(spec.inputFormat()).isEqualTo(InputFormat.AVRO);
    assertThat(spec.outputFormat()).isEqualTo(OutputFormat.AVRO);
    // ChangeStreams writes JSON: generate with the JSON example spec, whose columns are the schema's fields.
    DimensionSpec jsonTwin = EndToEndIT.spec("customers_json_twin", dir);
    assertThat(jsonTwin.columns()).isEqualTo(spec.columns());
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(jsonTwin, 20_260_405L).keys(500).events(6_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);
    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    // A file whose last line cannot be converted: produce refuses it whole, so customer 999999 never appears.
    Path bad = Files.write(dir.resolve("bad.jsonl"), List.of(
        "{\"customer_id\": 999999, \"city\": \"Oslo\", \"updated_at\": \"2026-01-01T00:00:00Z\"}",
        "{\"customer_id\": 999999, \"city\": \"Oslo\", \"updated_at\": \"yesterday\"}"));

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThatThrownBy(() -> ProduceCommand.produce(spec, bad, service.kafka()))
          .isInstanceOf(CliErrors.InputError.class).hasMessageContaining(bad + ", line 2: ")
          .hasMessageContaining("field 'updated_at' (timestamp-micros)");
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(6_000);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofSeconds(90));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();

      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
      // The versions topic holds Avro records: every non-null value of a version record decodes with the Avro codec
      // (event records, the event store's writes which the compactor keeps beside the table, are left out).
      VersionAvro avro = new VersionAvro(spec);
      List<ConsumerRecord<byte[], byte[]>> records =
          TopicReader.readAll(service.kafka(), spec.topics().versions(), true).kept().stream()
              .filter(r -> !EventRecordHeaders.isEvent(r.headers())).toList();
      assertThat(records).isNotEmpty();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        VersionChange c = avro.decodeChange(r.key(), r.value());
        assertThat(c.key()).isNotEqualTo(BusinessKey.of(999_999L));
      }
    }

    List<Version> table = new ArrayList<>(KernelReader.latest(dir.resolve("table"), spec));
    table.sort(io.dimstream.model.BusinessKeys.VERSION_ORDER);
    assertThat(table).containsExactlyElementsOf(expected);
  }
}
