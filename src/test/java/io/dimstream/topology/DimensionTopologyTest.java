package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every consequence of the fold (docs/concepts.md, "What the fold implies"), through the real topology. */
class DimensionTopologyTest {
  /** name is type 1 (untracked); city and tier are tracked; op = 'd' marks a delete. */
  static final DimensionSpec CUSTOMERS = DimensionSpec.builder("customers")
      .column("customer_id", ColumnType.LONG)
      .column("name", ColumnType.STRING)
      .column("city", ColumnType.STRING)
      .column("tier", ColumnType.STRING)
      .column("seq", ColumnType.LONG)
      .column("op", ColumnType.STRING)
      .key("customer_id").sequence("seq").track("city", "tier")
      .delete(new DeleteRule.ColumnEquals("op", "d"))
      .build();

  @TempDir
  Path stateDir;

  static String up(long id, long seq, String name, String city, String tier) {
    return "{\"customer_id\":" + id + ",\"seq\":" + seq + ",\"name\":\"" + name + "\",\"city\":\"" + city
        + "\",\"tier\":\"" + tier + "\",\"op\":\"u\"}";
  }

  static String del(long id, long seq) {
    return "{\"customer_id\":" + id + ",\"seq\":" + seq + ",\"op\":\"d\"}";
  }

  static Version v(long id, long from, Long to, String name, String city, String tier) {
    return new Version(BusinessKey.of(id), Sequence.of(from), to == null ? null : Sequence.of(to),
        Arrays.asList(name, city, tier));
  }

  /** A case: what was applied before, the batch under test, the records that batch emits, the final history. */
  record Case(List<String> before, List<String> batch, List<String> emitted, List<Version> history) {}

  static Stream<Arguments> cases() {
    return Stream.of(
        c("plain upsert", List.of(), List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of("open 1@10"),
            List.of(v(1, 10, null, "Ann", "Oslo", "gold"))),
        c("update with change: one close-out and one new version", List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(up(1, 20, "Ann", "Bergen", "gold")),
            List.of("close 1@10", "open 1@20"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Ann", "Bergen", "gold"))),
        c("no-change update creates nothing", List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(up(1, 20, "Ann", "Oslo", "gold")),
            List.of(),
            List.of(v(1, 10, null, "Ann", "Oslo", "gold"))),
        c("replayed batch emits nothing",
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 20, "Ann", "Bergen", "gold"), del(2, 5),
                up(2, 7, "Bob", "Rome", "silver"), del(2, 9)),
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 20, "Ann", "Bergen", "gold"), del(2, 5),
                up(2, 7, "Bob", "Rome", "silver"), del(2, 9)),
            List.of(),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Ann", "Bergen", "gold"),
                v(2, 7, 9L, "Bob", "Rome", "silver"))),
        c("duplicated event creates nothing", List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 20, "Ann", "Bergen", "gold")),
            List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Ann", "Bergen", "gold"))),
        c("late event is spliced into a closed version",
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 30, "Ann", "Bergen", "gold")),
            List.of(up(1, 20, "Ann", "Trondheim", "gold")),
            List.of("correct 1@10", "open 1@20"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, 30L, "Ann", "Trondheim", "gold"),
                v(1, 30, null, "Ann", "Bergen", "gold"))),
        c("late event makes a later version redundant: retraction",
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 30, "Ann", "Bergen", "gold")),
            List.of(up(1, 20, "Ann", "Bergen", "gold")),
            List.of("correct 1@10", "open 1@20", "retract 1@30"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Ann", "Bergen", "gold"))),
        c("late delete between two equal upserts re-opens the key",
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 30, "Ann", "Oslo", "gold")),
            List.of(del(1, 20)),
            List.of("close 1@10", "open 1@30"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 30, null, "Ann", "Oslo", "gold"))),
        c("delete then re-insert opens a new version", List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(del(1, 20), up(1, 30, "Ann", "Oslo", "gold")),
            List.of("close 1@10", "open 1@30"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 30, null, "Ann", "Oslo", "gold"))),
        c("delete with no open version does nothing", List.of(),
            List.of(del(1, 20)),
            List.of(),
            List.of()),
        c("two events of one key in one batch are both applied in sequence order", List.of(),
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 20, "Ann", "Bergen", "gold")),
            List.of("open 1@10", "close 1@10", "open 1@20"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Ann", "Bergen", "gold"))),
        c("two events of one key in one batch, newer first", List.of(),
            List.of(up(1, 20, "Ann", "Bergen", "gold"), up(1, 10, "Ann", "Oslo", "gold")),
            List.of("open 1@20", "open 1@10"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Ann", "Bergen", "gold"))),
        c("same sequence twice: the last arrival wins", List.of(),
            List.of(up(1, 10, "Ann", "Oslo", "gold"), up(1, 10, "Ann", "Bergen", "gold")),
            List.of("open 1@10", "correct 1@10"),
            List.of(v(1, 10, null, "Ann", "Bergen", "gold"))),
        c("same sequence as a closed version replaces it and its successor", List.of(
                up(1, 10, "Ann", "Oslo", "gold"), up(1, 20, "Ann", "Bergen", "gold")),
            List.of(up(1, 10, "Ann", "Bergen", "gold")),
            List.of("correct 1@10", "retract 1@20"),
            List.of(v(1, 10, null, "Ann", "Bergen", "gold"))),
        c("type-1 column updates the open version in place", List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(up(1, 20, "Annie", "Oslo", "gold")),
            List.of("correct 1@10"),
            List.of(v(1, 10, null, "Annie", "Oslo", "gold"))),
        c("type-1 column change together with a tracked one opens a version", List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(up(1, 20, "Annie", "Oslo", "platinum")),
            List.of("close 1@10", "open 1@20"),
            List.of(v(1, 10, 20L, "Ann", "Oslo", "gold"), v(1, 20, null, "Annie", "Oslo", "platinum"))),
        c("keys are independent", List.of(up(1, 10, "Ann", "Oslo", "gold")),
            List.of(up(2, 5, "Bob", "Oslo", "gold")),
            List.of("open 2@5"),
            List.of(v(1, 10, null, "Ann", "Oslo", "gold"), v(2, 5, null, "Bob", "Oslo", "gold"))));
  }

  private static Arguments c(String name, List<String> before, List<String> batch, List<String> emitted,
      List<Version> history) {
    return Arguments.of(named(name, new Case(before, batch, emitted, history)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void shouldFollowTheScd2Contract(Case c) {
    try (TopologyRunner h = TopologyRunner.builder(CUSTOMERS).stateDir(stateDir).build()) {
      h.send(c.before().toArray(String[]::new));
      h.emitted();
      h.send(c.batch().toArray(String[]::new));

      assertThat(h.emitted()).map(Object::toString).containsExactlyElementsOf(c.emitted());
      assertThat(h.history()).containsExactlyElementsOf(c.history());
      assertThat(h.rejections()).isEmpty();
    }
  }

  @Test
  void shouldKeepCompositeKeysApart() {
    DimensionSpec spec = DimensionSpec.builder("stores")
        .column("region", ColumnType.STRING).column("store_id", ColumnType.INT)
        .column("manager", ColumnType.STRING).column("seq", ColumnType.LONG)
        .key("region", "store_id").sequence("seq").build();
    try (TopologyRunner h = TopologyRunner.builder(spec).stateDir(stateDir).build()) {
      h.send("{\"region\":\"eu\",\"store_id\":1,\"manager\":\"Ann\",\"seq\":1}",
          "{\"region\":\"us\",\"store_id\":1,\"manager\":\"Bob\",\"seq\":2}",
          "{\"region\":\"eu\",\"store_id\":1,\"manager\":\"Cid\",\"seq\":3}",
          "{\"region\":\"eu\",\"store_id\":2,\"manager\":\"Dee\",\"seq\":1}");

      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of("eu", 1), Sequence.of(1), Sequence.of(3), List.of("Ann")),
          new Version(BusinessKey.of("eu", 1), Sequence.of(3), null, List.of("Cid")),
          new Version(BusinessKey.of("eu", 2), Sequence.of(1), null, List.of("Dee")),
          new Version(BusinessKey.of("us", 1), Sequence.of(2), null, List.of("Bob")));
    }
  }

  @Test
  void shouldOrderCompositeSequenceLeftToRight() {
    DimensionSpec spec = DimensionSpec.builder("accounts")
        .column("id", ColumnType.LONG).column("status", ColumnType.STRING)
        .column("day", ColumnType.DATE).column("lsn", ColumnType.LONG)
        .key("id").sequence("day", "lsn").build();
    try (TopologyRunner h = TopologyRunner.builder(spec).stateDir(stateDir).build()) {
      h.send("{\"id\":1,\"status\":\"new\",\"day\":\"2024-01-01\",\"lsn\":9}",
          "{\"id\":1,\"status\":\"closed\",\"day\":\"2024-01-02\",\"lsn\":1}",
          // late within the first day: lsn 12 > 9, so it sits between the two
          "{\"id\":1,\"status\":\"active\",\"day\":\"2024-01-01\",\"lsn\":12}");

      long jan1 = java.time.LocalDate.of(2024, 1, 1).toEpochDay();
      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(jan1, 9), Sequence.of(jan1, 12), List.of("new")),
          new Version(BusinessKey.of(1L), Sequence.of(jan1, 12), Sequence.of(jan1 + 1, 1), List.of("active")),
          new Version(BusinessKey.of(1L), Sequence.of(jan1 + 1, 1), null, List.of("closed")));
    }
  }

  @Test
  void shouldEmitWhatTheReadmeWorkedExampleShows() {
    DimensionSpec spec = DimensionSpec.builder("customers")
        .column("customer_id", ColumnType.LONG).column("name", ColumnType.STRING).column("city", ColumnType.STRING)
        .column("tier", ColumnType.STRING).column("updated_at", ColumnType.TIMESTAMP).column("op", ColumnType.STRING)
        .key("customer_id").sequence("updated_at").track("city", "tier").delete(new DeleteRule.ColumnEquals("op", "d"))
        .build();
    String[] events = {
        "{\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Oslo\", \"tier\": \"gold\", \"updated_at\": \"2026-01-01T06:00:00Z\", \"op\": \"c\"}",
        "{\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Oslo\", \"tier\": \"gold\", \"updated_at\": \"2026-01-02T06:00:00Z\", \"op\": \"u\"}",
        "{\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Bergen\", \"tier\": \"gold\", \"updated_at\": \"2026-01-05T06:00:00Z\", \"op\": \"u\"}",
        "{\"customer_id\": 1, \"name\": \"Ann Berg\", \"city\": \"Bergen\", \"tier\": \"gold\", \"updated_at\": \"2026-01-06T06:00:00Z\", \"op\": \"u\"}",
        "{\"customer_id\": 1, \"name\": \"Ann\", \"city\": \"Troms\u00f8\", \"tier\": \"gold\", \"updated_at\": \"2026-01-03T06:00:00Z\", \"op\": \"u\"}",
        "{\"customer_id\": 1, \"updated_at\": \"2026-01-09T06:00:00Z\", \"op\": \"d\"}"};
    List<List<String>> expected = List.of(
        List.of("open 01-01 to null"),
        List.of(),
        List.of("close 01-01 to 01-05", "open 01-05 to null"),
        List.of("correct 01-05 to null"),
        List.of("correct 01-01 to 01-03", "open 01-03 to 01-05"),
        List.of("close 01-05 to 01-09"));
    try (TopologyRunner h = TopologyRunner.builder(spec).stateDir(stateDir).build()) {
      for (int i = 0; i < events.length; i++) {
        h.send(events[i]);
        assertThat(h.emitted()).as("event %d", i + 1).map(e -> e.kind().wireName() + " " + day(e.id().validFrom())
            + " to " + (e.version().validTo() == null ? "null" : day(e.version().validTo())))
            .containsExactlyElementsOf(expected.get(i));
      }
      assertThat(h.history()).extracting(v -> v.attributes().get(0) + "/" + v.attributes().get(1))
          .containsExactly("Ann/Oslo", "Ann/Troms\u00f8", "Ann Berg/Bergen");
    }
  }

  private static String day(Sequence s) {
    return java.time.Instant.EPOCH.plus(s.first(), java.time.temporal.ChronoUnit.MICROS).toString().substring(5, 10);
  }

  @Test
  void shouldRefuseAvroVersionsWhoseColumnsCannotBeAvroFields() {
    DimensionSpec avro = DimensionSpec.builder("a").column("id", ColumnType.LONG).column("seq", ColumnType.LONG)
        .column("change", ColumnType.STRING)
        .key("id").sequence("seq").outputFormat(io.dimstream.spec.OutputFormat.AVRO).build();

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DimensionTopology.build(new org.apache.kafka.streams.StreamsBuilder(), avro))
        .isInstanceOf(TopologyException.class).hasMessageContaining("versions_format").hasMessageContaining("Fix:");
  }
}
