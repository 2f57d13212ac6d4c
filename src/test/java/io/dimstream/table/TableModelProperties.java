package io.dimstream.table;

import static io.dimstream.table.Versions.at;
import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Any sequence of batches of upserts and retractions leaves the table holding exactly the last change per identity
 * (a map model), read alike by our reader and by Delta Kernel at every version, whatever the layout (buckets,
 * checkpoints, merge-on-read with deletion vectors and their compaction, or copy-on-write).
 */
class TableModelProperties {
  record Change(long key, long fromHour, Long toHour, String name, boolean retract) {}

  private static final String ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

  static Gen<List<List<Change>>> batches() {
    Gen<Long> openOrLength = longs().between(1, 3).toOptionals(50).map(d -> d.orElse(null)); // null half the time
    Gen<String> names = lists().of(arbitrary().pick(ALPHA.chars().mapToObj(c -> String.valueOf((char) c)).toList()))
        .ofSizeBetween(0, 3).map(cs -> String.join("", cs));
    Gen<Change> change = longs().between(1, 6).zip(longs().between(0, 4), openOrLength, names,
        arbitrary().pick(true, false, false, false), (k, f, d, n, r) -> new Change(k, f, d == null ? null : f + d, n, r));
    return lists().of(lists().of(change).ofSizeBetween(0, 8)).ofSizeBetween(1, 6);
  }

  static Gen<Integer> bucketCounts() {
    return arbitrary().pick(1, 2, 16);
  }

  @Test
  void tableEqualsLastChangePerIdentity() {
    // each example writes a table; a bounded shrink keeps a failing run to minutes
    qt().withExamples(24).withShrinkCycles(50).forAll(batches(), bucketCounts(), booleans().all())
        .checkAssert((batches, buckets, deletionVectors) -> {
          try {
            tableEqualsLastChangePerIdentity(batches, buckets, deletionVectors);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static void tableEqualsLastChangePerIdentity(List<List<Change>> batches, int buckets,
      boolean deletionVectors) throws IOException {
    Path dir = Files.createTempDirectory("table-model");
    try {
      DeltaTable table = DeltaTable.create(dir, customers(),
          Map.of("dimstream.buckets", Integer.toString(buckets), "delta.checkpointInterval", "2",
              "delta.enableDeletionVectors", Boolean.toString(deletionVectors)));
      VersionsById model = new VersionsById();
      Map<Long, List<Version>> modelAt = new LinkedHashMap<>();
      long txn = 0;
      for (List<Change> batch : batches) {
        List<VersionChange> changes = new ArrayList<>();
        for (Change c : batch) {
          BusinessKey key = BusinessKey.of(c.key());
          Sequence from = at(c.fromHour());
          if (c.retract()) {
            changes.add(new VersionChange.Retraction(key, from));
          } else {
            Version v = Versions.version(c.key(), c.fromHour(), c.toHour(), c.name());
            changes.add(new VersionChange.Upsert(v, ChangeKind.CORRECT));
          }
        }
        model.apply(changes);
        CommitResult r = table.newCommit(Operation.MERGE).txns(Map.of("app", ++txn)).apply(changes);
        modelAt.put(r.version(), model.sorted());
        if (deletionVectors && txn % 3 == 0) {
          table.newCompaction().runFull();
          modelAt.put(table.latest().version(), model.sorted());
        }
      }
      // every version, from a checkpoint or from JSON commits, reads as the model did after that commit
      for (Map.Entry<Long, List<Version>> e : modelAt.entrySet()) {
        assertThat(sorted(KernelReader.atVersion(dir, customers(), e.getKey()))).isEqualTo(e.getValue());
        assertThat(scan(table.snapshotAt(e.getKey()))).isEqualTo(e.getValue());
      }
      List<Version> expected = model.sorted();
      assertThat(scan(table.latest())).isEqualTo(expected);
      assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(expected);
      assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
      for (long k = 1; k <= 6; k++) {
        long key = k;
        List<Version> history = model.sorted().stream().filter(v -> v.key().values().get(0).equals(key))
            .sorted(Comparator.comparing(Version::validFrom)).toList();
        assertThat(table.latest().history(BusinessKey.of(k))).isEqualTo(history);
      }
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
