package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.KeyState;
import io.dimstream.history.Scd2Fold;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.StateLayouts;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.topology.LiveStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service restarted with a spec that adds a column (before the others) and widens another: the events it
 * stored under the first spec are read under the new one, so events that arrive afterwards, in order or late, are
 * applied to the history written before and nothing goes to the dead-letter topic; the table ends as the reference
 * fold of every event under the new spec (the first run's events null in the new column), read by Delta Kernel too.
 */
class AddedColumnIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  private DimensionSpec spec(String name, String columns) throws Exception {
    String yaml = """
        name: visits_added
        columns: {%s}
        key: [customer_id]
        sequence: [seq]
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 1s}
          http: {port: 0}
        """.formatted(columns, dir.resolve("data"), dir.resolve("table"));
    return DimensionSpecLoader.load(Files.writeString(dir.resolve(name + ".yaml"), yaml));
  }

  private void run(DimensionSpec spec, String name, Consumer<DimensionService> whileRunning, String... rows)
      throws Exception {
    Path input = Files.write(dir.resolve("input-" + name + ".jsonl"), List.of(rows));
    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(rows.length);
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec,
          "dimstream-" + spec.name()) && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()),
          Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();
      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
      whileRunning.accept(service);
    }
  }

  @Test
  void shouldApplyEventsToTheHistoryStoredBeforeTheSpecGainedAColumn() throws Exception {
    DimensionSpec narrow = spec("narrow", "customer_id: long, name: string, visits: int, seq: long");
    run(narrow, "narrow", s -> { }, row(1, null, "Ann", 3, 10), row(1, null, "Ann", 4, 20),
        row(2, null, "Bob", 5, 10));
    DimensionSpec wide = spec("wide", "customer_id: long, tier: string, name: string, visits: long, seq: long");

    // late into key 1's first-run history, newer for key 1; key 2 is left with first-run events only
    run(wide, "wide", service -> {
      LiveStores live = new LiveStores(service.streams(), wide,
          StateLayouts.parse(service.table().properties().get(StateLayouts.PROPERTY)));
      BusinessKey bob = BusinessKey.of(2L);
      assertThat(live.keyState(bob)).map(KeyState::open).contains(version(2, 10, null, null, "Bob", 5L));
      assertThat(live.events(bob)).extracting(StoredEvent::event).containsExactly(event(2, 10, null, "Bob", 5L));
    }, row(1, "gold", "Ann", 6_000_000_000L, 15), row(1, "gold", "Ann", 4, 30), row(1, null, "Ann", 4, 40));

    List<ChangeEvent> all = List.of(event(1, 10, null, "Ann", 3L), event(1, 20, null, "Ann", 4L),
        event(2, 10, null, "Bob", 5L), event(1, 15, "gold", "Ann", 6_000_000_000L), event(1, 30, "gold", "Ann", 4L),
        event(1, 40, null, "Ann", 4L));
    List<Version> expected = Scd2Fold.fold(wide, all);
    assertThat(expected).as("the reference history this test expects").hasSize(6);
    assertThat(sorted(KernelReader.latest(dir.resolve("table"), wide))).isEqualTo(expected);
    DeltaTable table = DeltaTable.open(dir.resolve("table"));
    try (Stream<Version> rows = table.latest().scan()) {
      assertThat(sorted(rows.toList())).isEqualTo(expected);
    }
    assertThat(table.properties()).containsEntry(StateLayouts.PROPERTY, "[[\"name\",\"visits\"]]");
  }

  private static ChangeEvent event(long key, long seq, String tier, String name, long visits) {
    return ChangeEvent.upsert(BusinessKey.of(key), Sequence.of(seq), Arrays.asList(tier, name, visits));
  }

  private static Version version(long key, long from, Long to, String tier, String name, long visits) {
    return new Version(BusinessKey.of(key), Sequence.of(from), to == null ? null : Sequence.of(to),
        Arrays.asList(tier, name, visits));
  }

  private static List<Version> sorted(List<Version> versions) {
    return versions.stream().sorted(Comparator.comparing((Version v) -> (Long) v.key().values().get(0))
        .thenComparing(Version::validFrom)).toList();
  }

  private static String row(long id, String tier, String name, long visits, long seq) {
    return "{\"customer_id\": " + id + (tier == null ? "" : ", \"tier\": \"" + tier + "\"") + ", \"name\": \""
        + name + "\", \"visits\": " + visits + ", \"seq\": " + seq + "}";
  }
}
