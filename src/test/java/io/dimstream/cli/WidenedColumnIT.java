package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service restarted with a spec that widens a column ({@code int → long}): the table follows in one commit on
 * start, the events and versions kept from the first run read as the wider type, and a late event that splits a
 * version written before the widening lands right; Delta Kernel reads it all back.
 */
class WidenedColumnIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  private DimensionSpec spec(String type) throws Exception {
    String yaml = """
        name: visits_widening
        columns: {customer_id: long, name: string, visits: %s, seq: long}
        key: [customer_id]
        sequence: [seq]
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 1s}
          http: {port: 0}
        """.formatted(type, dir.resolve("data"), dir.resolve("table"));
    Path file = dir.resolve("visits-" + type + ".yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  private void run(DimensionSpec spec, String... rows) throws Exception {
    Path input = Files.write(dir.resolve("input-" + spec.column("visits").type() + ".jsonl"), List.of(rows));
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(rows.length);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec,
          "dimstream-" + spec.name()) && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
          Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();
      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
    }
  }

  @Test
  void shouldWidenTheTableOnStartAndKeepApplyingEventsToTheHistoryWrittenBefore() throws Exception {
    run(spec("int"), row(1, "Ann", 3, 10), row(1, "Ann", 4, 20), row(2, "Bob", 5, 10));
    DimensionSpec wide = spec("long");

    run(wide, row(1, "Ann", 6_000_000_000L, 15), row(2, "Bob", 7_000_000_000L, 30));

    List<Version> expected = List.of(version(1, 10, 15L, "Ann", 3L), version(1, 15, 20L, "Ann", 6_000_000_000L),
        version(1, 20, null, "Ann", 4L), version(2, 10, 30L, "Bob", 5L), version(2, 30, null, "Bob", 7_000_000_000L));
    assertThat(sorted(KernelReader.latest(dir.resolve("table"), wide))).isEqualTo(expected);
    DeltaTable table = DeltaTable.open(dir.resolve("table"));
    try (Stream<Version> rows = table.latest().scan()) {
      assertThat(sorted(rows.toList())).isEqualTo(expected);
    }
    assertThat(table.history()).extracting(CommitSummary::operation).containsOnlyOnce("CHANGE COLUMN");
    assertThat(table.properties()).containsEntry("delta.enableTypeWidening", "true");
  }

  private static Version version(long key, long from, Long to, String name, long visits) {
    return new Version(BusinessKey.of(key), Sequence.of(from), to == null ? null : Sequence.of(to),
        Arrays.asList(name, visits));
  }

  private static List<Version> sorted(List<Version> versions) {
    return versions.stream().sorted(Comparator.comparing((Version v) -> (Long) v.key().values().get(0))
        .thenComparing(Version::validFrom)).toList();
  }

  private static String row(long id, String name, long visits, long seq) {
    return "{\"customer_id\": " + id + ", \"name\": \"" + name + "\", \"visits\": " + visits + ", \"seq\": " + seq
        + "}";
  }
}
