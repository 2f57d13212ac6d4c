package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key's history is read through each column's page index and then filtered row by row; with a key of two columns
 * the pages the two indexes pick differ, and Parquet's reader of selected rows returns a wrong row for some row
 * ranges (the reason for the lead-in row of {@code PositionReads}). Every key of a table whose files hold many pages, bulk-loaded and then changed merge-on-read, is
 * looked up and compared with what was written.
 */
class CompositeKeyHistoryTest {
  private static final DimensionSpec ACCOUNTS = DimensionSpec.builder("accounts").column("region", "string")
      .column("acct", "int").column("seq", "long").column("name", "string").key("region", "acct").sequence("seq")
      .build();

  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0} bucket(s)")
  @ValueSource(strings = {"1", "4"})
  void shouldFindEveryCompositeKeysWholeHistoryInFilesOfManyPages(String buckets) {
    DeltaTable table = DeltaTable.create(dir, ACCOUNTS, Map.of("dimstream.buckets", buckets));
    Map<BusinessKey, List<Version>> written = histories(new Random(7));
    BulkLoad load = table.bulkLoad();
    Map<Integer, List<Version>> byBucket = new TreeMap<>();
    written.values().forEach(vs -> vs.forEach(v -> byBucket.computeIfAbsent(load.bucketOf(v.key()),
        b -> new ArrayList<>()).add(v)));
    byBucket.forEach(load::write);
    load.commit(Operation.WRITE);
    // every 97th key changes once more: its current row is marked deleted in its file and written anew elsewhere
    table.newCommit(Operation.MERGE).apply(closeAndReopenEvery(97, written));

    Snapshot latest = table.latest();
    List<String> wrong = new ArrayList<>();
    written.forEach((key, expected) -> {
      List<Version> found = latest.history(key);
      if (!found.equals(expected) && wrong.size() < 5) {
        wrong.add(key + ": found " + found + ", written " + expected);
      }
    });
    assertThat(wrong).as("keys whose history differs from what was written").isEmpty();
  }

  /** 7 regions of 1,500 accounts, a tenth of them with 2 to 4 versions; the rest with one open version. */
  private static Map<BusinessKey, List<Version>> histories(Random random) {
    Map<BusinessKey, List<Version>> out = new LinkedHashMap<>();
    for (int region = 0; region < 7; region++) {
      for (int acct = 0; acct < 1_500; acct++) {
        BusinessKey key = BusinessKey.of("region-" + region, acct * 3 + region);
        int versions = random.nextInt(10) == 0 ? 2 + random.nextInt(3) : 1;
        List<Version> history = new ArrayList<>();
        for (int i = 0; i < versions; i++) {
          Sequence to = i == versions - 1 ? null : Sequence.of(100L * (i + 1));
          // names of varying length, so that the columns' pages end at different rows
          history.add(new Version(key, Sequence.of(100L * i), to,
              List.of("n" + acct + "-" + i + "-" + "y".repeat(random.nextInt(30)))));
        }
        out.put(key, history);
      }
    }
    return out;
  }

  /** Closes the open version of every {@code nth} key at 10,000 and opens a new one; updates {@code written}. */
  private static List<VersionChange> closeAndReopenEvery(int nth, Map<BusinessKey, List<Version>> written) {
    List<VersionChange> changes = new ArrayList<>();
    int i = 0;
    for (List<Version> history : written.values()) {
      if (i++ % nth != 0) {
        continue;
      }
      Version open = history.get(history.size() - 1);
      Version closed = new Version(open.key(), open.validFrom(), Sequence.of(10_000L), open.attributes());
      Version next = new Version(open.key(), Sequence.of(10_000L), null, List.of("changed"));
      changes.add(new VersionChange.Upsert(closed, ChangeKind.CLOSE));
      changes.add(new VersionChange.Upsert(next, ChangeKind.OPEN));
      history.set(history.size() - 1, closed);
      history.add(next);
    }
    return changes;
  }
}
