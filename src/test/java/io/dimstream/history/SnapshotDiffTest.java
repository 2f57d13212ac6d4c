package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.up;
import static io.dimstream.history.HistoryFixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.HistoryMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A full snapshot against a table's latest versions, case by case, for scd2 and scd1 tables. */
class SnapshotDiffTest {
  private static final Sequence AT = Sequence.of(50);

  static DimensionSpec spec(HistoryMode mode) {
    return DimensionSpec.builder("d").column("id", "long").column("seq", "long").column("city", "string")
        .column("name", "string").key("id").sequence("seq").history(mode)
        .track(mode.isScd1() ? List.of() : List.of("city")).build();
  }

  static Stream<Arguments> cases() {
    HistoryMode scd2 = HistoryMode.SCD2;
    HistoryMode hard = new HistoryMode(HistoryMode.Kind.SCD1, false);
    HistoryMode soft = new HistoryMode(HistoryMode.Kind.SCD1, true);
    Version oslo = version(1, 10, null, "Oslo", "A");
    return Stream.of(
        Arguments.of("unchanged row: nothing", scd2, List.of(oslo), List.of(up(1, 50, "Oslo", "A")), List.of(oslo)),
        Arguments.of("tracked change: new version at the snapshot", scd2, List.of(oslo),
            List.of(up(1, 50, "Rome", "A")),
            List.of(version(1, 10, 50L, "Oslo", "A"), version(1, 50, null, "Rome", "A"))),
        Arguments.of("untracked change: in place", scd2, List.of(oslo), List.of(up(1, 50, "Oslo", "B")),
            List.of(version(1, 10, null, "Oslo", "B"))),
        Arguments.of("missing key: closed at the snapshot", scd2, List.of(oslo), List.of(),
            List.of(version(1, 10, 50L, "Oslo", "A"))),
        Arguments.of("new key: opened", scd2, List.of(), List.of(up(2, 50, "Nice", "C")),
            List.of(version(2, 50, null, "Nice", "C"))),
        Arguments.of("scd1: change in place", hard, List.of(oslo), List.of(up(1, 50, "Rome", "B")),
            List.of(version(1, 10, null, "Rome", "B"))),
        Arguments.of("scd1: missing key removed", hard, List.of(oslo), List.of(), List.of()),
        Arguments.of("scd1 soft: missing key closed", soft, List.of(oslo), List.of(),
            List.of(version(1, 10, 50L, "Oslo", "A"))),
        Arguments.of("scd1 soft: deleted key back in the snapshot", soft, List.of(version(1, 10, 20L, "Oslo", "A")),
            List.of(up(1, 50, "Oslo", "A")), List.of(version(1, 10, null, "Oslo", "A"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void shouldApplyTheSnapshot(String name, HistoryMode mode, List<Version> before, List<ChangeEvent> rows,
      List<Version> after) {
    Map<BusinessKey, Version> latest = new LinkedHashMap<>();
    before.forEach(v -> latest.put(v.key(), v));
    VersionsById table = new VersionsById();
    before.forEach(v -> table.apply(List.of(new io.dimstream.model.VersionChange.Upsert(v,
        io.dimstream.model.ChangeKind.OPEN))));
    table.apply(new SnapshotDiff(spec(mode)).diff(latest, rows, AT));
    assertThat(table.sorted()).containsExactlyElementsOf(after);
  }
}
