package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dimstream.model.Version;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.commit.ProtocolRepair;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A table of an earlier release (protocol without 'invariants') is completed by the next write, and only once. */
class ProtocolRepairTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger(ProtocolRepair.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @TempDir
  Path dir;

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void stopCapturing() {
    logger.detachAppender(logged);
  }

  private DeltaTable previousReleaseTable() {
    DeltaTable t = DeltaTable.create(dir, customers(), Map.of());
    t.newCommit(Operation.WRITE).apply(upserts(version(1, 0, null, "a"), version(2, 0, null, "b")));
    PreviousRelease.rewriteProtocol(dir);
    return DeltaTable.open(dir);
  }

  @Test
  void shouldCreateMergeOnReadTablesWithNothingMissing() {
    DeltaTable t = DeltaTable.create(dir, customers(), Map.of());

    assertThat(t.missingProtocolFeatures()).isEmpty();
    assertThat(t.latest().state.protocol.writerFeatures()).contains("invariants", "deletionVectors");
  }

  @Test
  void shouldAddTheMissingFeaturesInOneProtocolCommitBeforeTheNextWrite() {
    DeltaTable t = previousReleaseTable();
    Metadata before = t.latest().state.metadata;
    assertThat(t.missingProtocolFeatures()).containsExactly("invariants");
    assertThat(t.incompleteProtocolWarning()).get().asString()
        .contains("invariants", "DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH", "dimstream table upgrade --table " + dir);

    t.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 5L, "a"), version(1, 5, null, "a2")));

    List<CommitSummary> history = t.history();
    assertThat(history).extracting(CommitSummary::operation)
        .containsExactly("MERGE", "UPGRADE PROTOCOL", "WRITE", "CREATE TABLE");
    Protocol p = t.snapshotAt(2).state.protocol;
    assertThat(p.readerFeatures()).containsExactly("deletionVectors");
    assertThat(p.writerFeatures()).containsExactly("deletionVectors", "invariants");
    assertThat(t.snapshotAt(2).state.metadata).as("nothing else changes").isEqualTo(before);
    assertThat(t.snapshotAt(2).state.adds).isEqualTo(t.snapshotAt(1).state.adds);
    assertThat(t.missingProtocolFeatures()).isEmpty();
    assertThat(logged.list).singleElement().extracting(ILoggingEvent::getFormattedMessage).asString()
        .contains("[invariants]", "table version 2", "Delta Spark refuses");
    List<Version> expected = List.of(version(1, 0, 5L, "a"), version(1, 5, null, "a2"), version(2, 0, null, "b"));
    assertThat(scan(t.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
  }

  @Test
  void shouldRepairOnceWhenSeveralWritersOpenedTheOldTable() {
    previousReleaseTable();
    TableOptions options = new TableOptions(java.time.Clock.systemUTC(), 5, Duration.ofMillis(1));
    DeltaTable a = DeltaTable.open(dir, options);
    DeltaTable b = DeltaTable.open(dir, options);

    a.newCommit(Operation.WRITE).apply(upserts(version(3, 0, null, "c")));
    b.newCommit(Operation.WRITE).apply(upserts(version(4, 0, null, "d")));
    a.newCompaction().runFull();

    assertThat(a.history()).filteredOn(c -> c.operation().equals("UPGRADE PROTOCOL")).hasSize(1);
    assertThat(logged.list).hasSize(1);
  }

  @Test
  void shouldLeaveATableAloneWhileOnlyReadingIt() throws IOException {
    DeltaTable t = previousReleaseTable();

    t.latest();
    t.history();
    DeltaTable.open(dir).snapshotAt(1);

    try (var files = Files.list(dir.resolve("_delta_log"))) {
      assertThat(files.filter(f -> f.toString().endsWith(".json")).count()).isEqualTo(2);
    }
  }

  @Test
  void shouldCompleteTheProtocolOnRequestAndSayWhatItAdded() {
    DeltaTable t = previousReleaseTable();

    assertThat(t.completeProtocol()).containsExactly("invariants");
    assertThat(t.completeProtocol()).isEmpty();
    assertThat(t.latest().version()).isEqualTo(2);
  }

  @Test
  void shouldCompleteTheProtocolWhenMovingACopyOnWriteTableToDeletionVectors() {
    DeltaTable t = DeltaTable.create(dir, customers(), Map.of("delta.enableDeletionVectors", "false"));
    assertThat(t.latest().state.protocol).isEqualTo(new Protocol(1, 2));

    t.upgradeToDeletionVectors();

    assertThat(t.latest().state.protocol.writerFeatures())
        .containsExactly("appendOnly", "invariants", "deletionVectors");
    assertThat(t.missingProtocolFeatures()).isEmpty();
    assertThat(t.latest().version()).as("no separate repair commit: the 1 / 2 protocol was complete").isEqualTo(1);
  }
}
