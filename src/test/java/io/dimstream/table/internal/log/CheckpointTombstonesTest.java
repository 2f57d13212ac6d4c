package io.dimstream.table.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CheckpointTombstonesTest {
  private static final Map<String, String> CURRENT = Map.of("is_current", "true");
  private static final UUID FILE_1 = new UUID(1, 1);
  private static final UUID FILE_2 = new UUID(2, 2);
  private static final UUID FILE_3 = new UUID(3, 3);

  private static DeletionVectorDescriptor inFile(UUID file, int offset) {
    return DeletionVectorDescriptor.inFile(file, offset, 10, 1);
  }

  private static DeletionVectorDescriptor inline(long row) {
    RoaringBitmapArray rows = new RoaringBitmapArray();
    rows.add(row);
    return DeletionVectorDescriptor.inline(rows);
  }

  private static AddFile add(String path, DeletionVectorDescriptor dv) {
    return new AddFile(path, CURRENT, 100, 1, true, "{\"numRecords\":3}", dv);
  }

  private static RemoveFile remove(String path, DeletionVectorDescriptor dv, long at) {
    return new RemoveFile(path, at, true, CURRENT, 100, dv);
  }

  @Test
  void shouldKeepOnlyTheTombstonesThatKeepAFileFromVacuum() {
    TableState.Builder b = new TableState.Builder();
    b.apply(add("a.parquet", inFile(FILE_1, 1)));
    b.apply(add("b.parquet", inline(2)));
    b.apply(add("c.parquet", null));
    RemoveFile aWithoutDv = remove("a.parquet", null, 10);
    RemoveFile bInline = remove("b.parquet", inline(1), 10);
    RemoveFile aInFile2 = remove("a.parquet", inFile(FILE_2, 1), 20);
    RemoveFile bInFile2 = remove("b.parquet", inFile(FILE_2, 40), 30);
    RemoveFile cInFile1 = remove("c.parquet", inFile(FILE_1, 80), 20);
    RemoveFile gone = remove("d.parquet", null, 5);
    RemoveFile goneInline = remove("e.parquet", inline(1), 5);
    RemoveFile expired = remove("a.parquet", inFile(FILE_3, 1), 1);
    for (RemoveFile r : new RemoveFile[] {aWithoutDv, bInline, aInFile2, bInFile2, cInFile1, gone, goneInline,
        expired}) {
      b.apply(r);
    }

    // a and b are live: their DV-less and inline tombstones keep nothing; FILE_2 is kept by its latest tombstone,
    // FILE_1 by the live add of a; d and e are no longer live, so their tombstones keep the data files
    assertThat(CheckpointTombstones.kept(b.build(1, 0), 2)).containsExactly(bInFile2, gone, goneInline);
  }

  @Test
  void shouldKeepEveryUnexpiredTombstoneOfAFileThatIsNoLongerLive() {
    TableState.Builder b = new TableState.Builder();
    RemoveFile first = remove("a.parquet", inFile(FILE_1, 1), 10);
    RemoveFile second = remove("a.parquet", inFile(FILE_2, 1), 20);
    b.apply(first);
    b.apply(second);

    assertThat(CheckpointTombstones.kept(b.build(1, 0), 0)).containsExactly(first, second);
  }
}
