package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.retract;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTableTest {
  @TempDir
  Path dir;

  @Test
  void shouldReadBackCommittedVersionsWithOurReaderAndDeltaKernel() {
    DimensionSpec spec = customers();
    DeltaTable table = DeltaTable.create(dir, spec, Map.of("dimstream.buckets", "4"));
    CommitResult r = table.newCommit(Operation.MERGE).txns(Map.of("app-0", 5L))
        .apply(upserts(version(1, 0, null, "ann"), version(2, 0, null, "bob")));
    assertThat(r.committed()).isTrue();
    assertThat(r.version()).isEqualTo(1);
    assertThat(r.rowsInserted()).isEqualTo(2);

    CommitResult r2 = table.newCommit(Operation.MERGE).txns(Map.of("app-0", 6L))
        .apply(upserts(version(1, 0, 5L, "ann"), version(1, 5, null, "anne")));
    assertThat(r2.rowsUpdated()).isEqualTo(1);
    assertThat(r2.rowsInserted()).isEqualTo(1);

    List<Version> expected = sorted(List.of(version(1, 0, 5L, "ann"), version(1, 5, null, "anne"),
        version(2, 0, null, "bob")));
    assertThat(scan(table.latest())).isEqualTo(expected);
    assertThat(sorted(KernelReader.latest(dir, spec))).isEqualTo(expected);
    assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(expected);
    assertThat(table.txnVersion("app-0")).isEqualTo(6);
    assertThat(KernelReader.txnVersion(dir, "app-0")).contains(6L);
  }

  @Test
  void shouldDeleteRetractedVersion() {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of());
    table.newCommit(Operation.MERGE).apply(upserts(version(1, 0, 5L, "ann"), version(1, 5, null, "anne")));
    List<io.dimstream.model.VersionChange> changes = new ArrayList<>();
    changes.add(retract(1, 5));
    changes.add(Versions.upsert(version(1, 0, null, "ann")));
    CommitResult r = table.newCommit(Operation.MERGE).apply(changes);
    assertThat(r.rowsDeleted()).isEqualTo(1);
    assertThat(r.rowsUpdated()).isEqualTo(1);
    assertThat(scan(table.latest())).containsExactly(version(1, 0, null, "ann"));
    assertThat(sorted(KernelReader.latest(dir, customers()))).containsExactly(version(1, 0, null, "ann"));
  }
}
