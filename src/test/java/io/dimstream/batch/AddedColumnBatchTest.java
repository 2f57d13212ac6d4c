package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Backfill and apply-snapshot onto a table whose spec gained a column: they evolve it as the service does. */
class AddedColumnBatchTest {
  static final DimensionSpec NARROW = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq").build();
  static final DimensionSpec WIDE = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("brand", ColumnType.STRING).column("color", ColumnType.STRING)
      .column("seq", ColumnType.LONG).key("id").sequence("seq").build();
  static final DimensionSpec WIDER = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("brand", ColumnType.STRING).column("color", ColumnType.STRING)
      .column("size", ColumnType.LONG).column("seq", ColumnType.LONG).key("id").sequence("seq").build();

  @TempDir
  Path dir;

  @Test
  void shouldApplyASnapshotWithANewColumnToATableWrittenBeforeIt() throws Exception {
    Path table = dir.resolve("table");
    Backfill narrow = new Backfill(NARROW);
    narrow.write(narrow.build(inputs("{\"id\":1,\"color\":\"red\",\"seq\":10}", "{\"id\":2,\"color\":\"red\",\"seq\":10}"),
        "day1", null), table);

    SnapshotApply.Result r = new SnapshotApply(WIDE).apply(DeltaTable.open(table),
        inputs("{\"id\":1,\"brand\":\"acme\",\"color\":\"red\"}", "{\"id\":2,\"color\":\"red\"}"), "day2", "20");

    assertThat(r.closed()).isZero();
    assertThat(sorted(KernelReader.latest(table, WIDE))).containsExactly(
        version(1, 10, 20L, null, "red"), version(1, 20, null, "acme", "red"), version(2, 10, null, null, "red"));
    assertThat(DeltaTable.open(table).properties()).containsEntry(StateLayouts.PROPERTY, "[[\"color\"]]");
  }

  @Test
  void shouldBackfillATableThatGainedColumnsAndKeepEveryEarlierLayout() throws Exception {
    Path table = dir.resolve("table");
    DeltaTable.create(table, NARROW, Map.of());
    DeltaTable.open(table).evolve(WIDE);

    Backfill.Loaded loaded = new Backfill(WIDER).load(inputs("{\"id\":1,\"brand\":\"acme\",\"color\":\"red\","
        + "\"size\":3,\"seq\":10}", "{\"id\":1,\"brand\":\"acme\",\"color\":\"blue\",\"seq\":20}"), "changes", null,
        table);

    assertThat(loaded.rejected()).isZero();
    List<Version> rows = sorted(KernelReader.latest(table, WIDER));
    assertThat(rows).containsExactly(
        new Version(BusinessKey.of(1L), Sequence.of(10), Sequence.of(20), Arrays.asList("acme", "red", 3L)),
        new Version(BusinessKey.of(1L), Sequence.of(20), null, Arrays.asList("acme", "blue", null)));
    assertThat(DeltaTable.open(table).properties())
        .containsEntry(StateLayouts.PROPERTY, "[[\"color\"],[\"brand\",\"color\"]]");
  }

  private static Version version(long id, long from, Long to, String brand, String color) {
    return new Version(BusinessKey.of(id), Sequence.of(from), to == null ? null : Sequence.of(to),
        Arrays.asList(brand, color));
  }

  private static List<Version> sorted(List<Version> versions) {
    List<Version> out = new ArrayList<>(versions);
    out.sort(io.dimstream.model.BusinessKeys.VERSION_ORDER);
    return out;
  }

  private static Iterator<Backfill.Input> inputs(String... lines) {
    List<Backfill.Input> out = new ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      out.add(new Backfill.Input(i + 1, lines[i].getBytes(StandardCharsets.UTF_8)));
    }
    return out.iterator();
  }
}
