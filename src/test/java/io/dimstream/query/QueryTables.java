package io.dimstream.query;

import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Writes Delta tables for the query tests through the table package's own commit path. */
public final class QueryTables {
  private QueryTables() {}

  /** Creates a table at {@code dir} and commits each batch of versions as one commit (upserts by identity). */
  @SafeVarargs
  public static DeltaTable write(Path dir, DimensionSpec spec, List<Version>... batches) {
    DeltaTable t = DeltaTable.create(dir, spec, Map.of());
    for (List<Version> batch : batches) {
      List<VersionChange> changes = new ArrayList<>(batch.size());
      for (Version v : batch) {
        changes.add(new VersionChange.Upsert(v, v.isCurrent() ? ChangeKind.OPEN : ChangeKind.CLOSE));
      }
      t.newCommit(Operation.WRITE).apply(changes);
    }
    return t;
  }
}
