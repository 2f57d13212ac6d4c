package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.log.Checkpoints;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.table.internal.log.TableState;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints keep only the tombstones VACUUM needs; time travel within the retention survives a vacuum. */
class CheckpointTombstonesTableTest {
  @TempDir
  Path dir;

  /** Starts at the wall clock: vacuum compares it with the files' modification times. */
  private final MutableClock clock = new MutableClock(Instant.now());

  private TableOptions options() {
    return new TableOptions(clock, 3, Duration.ofMillis(1));
  }

  @Test
  void shouldKeepEveryVersionReadableAfterVacuumOnATableReopenedFromACheckpoint() {
    // one bucket, so each commit re-marks the same current file; 150 marks a commit make DVs too big to inline
    DeltaTable table = DeltaTable.create(dir, customers(),
        Map.of("dimstream.buckets", "1", "delta.checkpointInterval", "1000"), options());
    // commit (and tombstone) times an hour past the files' modification times: vacuum's cut-off falls between them
    clock.advance(Duration.ofHours(2));
    List<Version> rows = new ArrayList<>();
    for (long k = 1; k <= 1200; k++) {
      rows.add(version(k, 0, null, "v" + k));
    }
    table.newCommit(Operation.WRITE).apply(upserts(rows.toArray(Version[]::new)));
    for (int c = 1; c <= 6; c++) {
      List<VersionChange> changes = new ArrayList<>();
      for (long k = c; k <= 1200; k += 8) {
        changes.addAll(upserts(version(k, 0, (long) c, "v" + k), version(k, c, null, "w" + k + "-" + c)));
      }
      clock.advance(Duration.ofSeconds(1));
      table.newCommit(Operation.MERGE).apply(changes);
    }
    long last = table.latest().version();
    List<List<Version>> before = new ArrayList<>();
    for (long v = 0; v <= last; v++) {
      before.add(scan(table.snapshotAt(v)));
    }
    TableState all = table.latest().state;
    assertThat(all.removes.values()).anyMatch(r -> r.deletionVector() != null && !r.deletionVector().isInline());

    table.checkpoint();
    DeltaLog log = new DeltaLog(dir);
    TableState checkpointed = Checkpoints.read(log, log.checkpointParts(last)).build(last, 0);
    assertThat(checkpointed.removes.size()).isLessThan(all.removes.size());
    assertThat(checkpointed.adds).isEqualTo(all.adds);

    clock.advance(Duration.ofHours(1));
    VacuumResult vacuumed = DeltaTable.open(dir, options()).vacuum(Duration.ofHours(2));
    assertThat(vacuumed.deletedFiles()).isEmpty();
    for (long v = 1; v <= last; v++) {
      assertThat(sorted(KernelReader.atVersion(dir, customers(), v))).as("Kernel at version %d", v)
          .isEqualTo(before.get((int) v));
    }
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(before.get((int) last));
  }
}
