package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code history: scd1} through {@code run}: broker, topology, versions topic, exactly-once compactor, table. */
class Scd1StreamIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldKeepOneRowPerKeyInTheTableTheServiceWrites() throws Exception {
    String yaml = Files.readString(Path.of("examples/customers-scd1.yaml"))
        + "\nservice:\n  data_dir: " + dir.resolve("data") + "\n  table_path: " + dir.resolve("table")
        + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n  partitions: 2\n";
    Path specFile = dir.resolve("customers_latest.yaml");
    Files.writeString(specFile, yaml);
    DimensionSpec spec = DimensionSpecLoader.load(specFile);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 11L).keys(300).events(4_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.05).generate();
    Path input = Files.write(dir.resolve("changes.jsonl"), stream.jsonLines(), StandardCharsets.UTF_8);
    List<Version> expected = Scd2Fold.fold(spec, stream.events());

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      ProduceCommand.produce(spec, input, service.kafka());
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec,
          "dimstream-" + spec.name()) && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
          Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();
    }

    List<Version> table = new ArrayList<>(KernelReader.latest(dir.resolve("table"), spec));
    table.sort(io.dimstream.model.BusinessKeys.VERSION_ORDER);
    assertThat(table).containsExactlyElementsOf(expected);
    assertThat(table).allMatch(Version::isCurrent);
    assertThat(table.stream().map(Version::key).distinct().count()).isEqualTo(table.size());
    List<CommitSummary> history = DeltaTable.open(dir.resolve("table")).history();
    assertThat(history).filteredOn(c -> c.operation().equals("MERGE")).isNotEmpty();
    assertThat(DeltaTable.open(dir.resolve("table")).spec().history()).isEqualTo(spec.history());
  }
}
