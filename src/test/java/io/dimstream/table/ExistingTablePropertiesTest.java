package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.TableSettings;
import io.dimstream.table.internal.actions.Protocol;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A spec's table properties meet a table that exists already: it is opened as it is, with a warning that says why. */
class ExistingTablePropertiesTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger(DeltaTable.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @TempDir
  Path dir;

  @BeforeEach
  void captureWarnings() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void stopCapturing() {
    logger.detachAppender(logged);
  }

  @Test
  void shouldOpenAMergeOnReadTableAsItIsAndSayCopyOnWriteNeedsANewTable() {
    DeltaTable.create(dir, spec(Map.of()), Map.of());

    DeltaTable t = DeltaTable.openOrCreate(dir, spec(Map.of("delta.enableDeletionVectors", "false")));

    assertThat(t.latest().version()).as("no commit").isZero();
    assertThat(t.latest().state.protocol.supportsDeletionVectors()).isTrue();
    assertThat(t.properties()).containsEntry("delta.enableDeletionVectors", "true");
    assertThat(warnings()).singleElement().asString()
        .contains(dir.toString(), "delta.enableDeletionVectors=false", "merge-on-read (protocol 3 / 7",
            "back to copy-on-write is not supported", "write the dimension to a new table", "service.table_path");
  }

  @Test
  void shouldOpenACopyOnWriteTableAsItIsAndNameTheUpgradeCommand() {
    DeltaTable.create(dir, spec(Map.of()), Map.of("delta.enableDeletionVectors", "false"));

    DeltaTable t = DeltaTable.openOrCreate(dir, spec(Map.of("delta.enableDeletionVectors", "true")));

    assertThat(t.latest().version()).as("no commit").isZero();
    assertThat(t.latest().state.protocol).isEqualTo(Protocol.DEFAULT);
    assertThat(warnings()).singleElement().asString()
        .contains("delta.enableDeletionVectors=true", "copy-on-write (protocol 1 / 2",
            "dimstream table upgrade --table " + dir + " --deletion-vectors");
  }

  @Test
  void shouldNameBothValuesWhenACompactionPropertyDiffers() {
    DeltaTable.create(dir, spec(Map.of()), Map.of("dimstream.compaction.smallFileRows", "5000"));

    DeltaTable t = DeltaTable.openOrCreate(dir, spec(Map.of("dimstream.compaction.deletedFraction", "0.5",
        "dimstream.compaction.smallFileRows", "8000", "dimstream.compaction.rowsPerCycle", "500000")));

    assertThat(t.properties()).containsEntry("dimstream.compaction.smallFileRows", "5000")
        .doesNotContainKey("dimstream.compaction.deletedFraction");
    assertThat(warnings()).hasSize(2);
    assertThat(warnings()).anySatisfy(w -> assertThat(w).contains(
        "asks for dimstream.compaction.deletedFraction=0.5, but the table has no "
            + "dimstream.compaction.deletedFraction (default 0.3)", "SET TBLPROPERTIES"));
    assertThat(warnings()).anySatisfy(w -> assertThat(w).contains(
        "asks for dimstream.compaction.smallFileRows=8000, but the table has dimstream.compaction.smallFileRows=5000"));
  }

  @Test
  void shouldWarnAboutNothingWhenTheTableHasWhatTheSpecAsks() {
    DeltaTable.create(dir, spec(Map.of()), Map.of("dimstream.compaction.deletedFraction", "0.3"));

    DeltaTable.openOrCreate(dir, spec(Map.of("delta.enableDeletionVectors", "true",
        "dimstream.compaction.deletedFraction", "0.30", "dimstream.compaction.rowsPerCycle", "500000")));

    assertThat(warnings()).isEmpty();
  }

  @Test
  void shouldCreateATableWithEveryPropertyASpecMaySet() {
    Map<String, String> every = new TreeMap<>(Map.ofEntries(
        Map.entry("delta.enableDeletionVectors", "false"),
        Map.entry("delta.enableChangeDataFeed", "true"),
        Map.entry("dimstream.compaction.deletedFraction", "0.25"),
        Map.entry("dimstream.compaction.smallFileRows", "1000"),
        Map.entry("dimstream.compaction.rowsPerCycle", "2000"),
        Map.entry("dimstream.targetFileRows", "3000"),
        Map.entry("dimstream.buckets", "8"),
        Map.entry("dimstream.codec", "snappy"),
        Map.entry("dimstream.currentCodec", "zstd"),
        Map.entry("delta.checkpointInterval", "20"),
        Map.entry("delta.deletedFileRetentionDuration", "interval 2 days")));
    assertThat(every.keySet()).as("a sample value for every name").isEqualTo(TableSettings.keys());

    DeltaTable t = DeltaTable.openOrCreate(dir, spec(every));

    assertThat(t.properties()).containsAllEntriesOf(every);
    // copy-on-write with the change data feed: writer features rather than writer 4, which also implies generated
    // columns
    assertThat(t.latest().state.protocol).isEqualTo(new Protocol(1, 7, null,
        List.of("appendOnly", "invariants", "changeDataFeed")));
  }

  private List<String> warnings() {
    return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  private static DimensionSpec spec(Map<String, String> tableProperties) {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long")
        .column("name", "string")
        .column("tier", "int")
        .column("balance", "decimal(12,2)")
        .column("since", "date")
        .column("updated_at", "timestamp")
        .column("op", "string")
        .key("customer_id")
        .sequence("updated_at")
        .trackExcept(List.of("balance"))
        .delete(new DeleteRule.ColumnEquals("op", "d"))
        .tableProperties(tableProperties)
        .build();
  }
}
