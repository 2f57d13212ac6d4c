package io.dimstream.table;

import static io.dimstream.table.Versions.at;
import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.table.TableModelProperties.Change;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The position index kept on disk gives the same table as one on the heap, whatever happens between commits: a clean
 * restart that adopts it, a restart on a copy of it from an earlier version (a machine restored from a backup, or
 * state that lagged the table), other writers' commits it did not see, compactions that move rows. A stale position
 * would mark the wrong row deleted and leave a key with two current rows or none; the model catches both.
 */
class PersistedIndexProperties {
  /** What happens after a batch: nothing, a restart, a restart on the saved copy, another writer, a compaction. */
  private static final int NOTHING = 0;
  private static final int RESTART = 1;
  private static final int RESTORE_SAVED = 2;
  private static final int OTHER_WRITER = 3;
  private static final int COMPACTION = 4;

  @Test
  void tableEqualsLastChangePerIdentityAcrossRestartsOfItsIndex() {
    qt().withExamples(30).withShrinkCycles(50)
        .forAll(TableModelProperties.batches(), lists().of(integers().between(0, 4)).ofSizeBetween(6, 6))
        .checkAssert((batches, events) -> {
          try {
            check(batches, events);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static void check(List<List<Change>> batches, List<Integer> events) throws IOException {
    Path root = Files.createTempDirectory("persisted-index");
    Path dir = root.resolve("table");
    Path indexDir = root.resolve("index");
    Path saved = root.resolve("saved");
    try {
      TableOptions options = TableOptions.defaults().withPositionIndexDir(indexDir);
      Map<String, String> props = Map.of("dimstream.compaction.smallFileRows", "1",
          "dimstream.compaction.deletedFraction", "0.1");
      DeltaTable table = DeltaTable.create(dir, customers(), props, options);
      VersionsById model = new VersionsById();
      for (int b = 0; b < batches.size(); b++) {
        List<VersionChange> changes = changes(batches.get(b));
        model.apply(changes);
        table.newCommit(Operation.MERGE).apply(changes);
        switch (events.get(b)) {
          case RESTART -> {
            table.closeLocalState();
            deleteTree(saved);
            if (Files.exists(indexDir)) {
              copyTree(indexDir, saved); // the copy a later restore goes back to
            }
            table = DeltaTable.open(dir, options);
          }
          case RESTORE_SAVED -> {
            table.closeLocalState();
            if (Files.exists(saved)) {
              deleteTree(indexDir);
              copyTree(saved, indexDir);
            }
            table = DeltaTable.open(dir, options);
          }
          case OTHER_WRITER -> {
            // another writer's commit the index must catch up with: a change of every key it touches
            List<VersionChange> theirs = new ArrayList<>();
            for (Version v : model.sorted()) {
              if (v.isCurrent() && ((Long) v.key().values().get(0)) % 2 == b % 2) {
                theirs.add(new VersionChange.Upsert(renamed(v, "other" + b), ChangeKind.CORRECT));
              }
            }
            model.apply(theirs);
            DeltaTable.open(dir).newCommit(Operation.MERGE).apply(theirs);
          }
          case COMPACTION -> table.newCompaction().runCycle();
          default -> { }
        }
      }
      // a last change of every current row goes through the index: each must find and replace its row
      List<VersionChange> last = new ArrayList<>();
      for (Version v : model.sorted()) {
        if (v.isCurrent()) {
          last.add(new VersionChange.Upsert(renamed(v, "last"), ChangeKind.CORRECT));
        }
      }
      model.apply(last);
      table.newCommit(Operation.MERGE).apply(last);
      table.closeLocalState();

      assertThat(scan(table.latest())).isEqualTo(model.sorted());
      assertThat(scan(DeltaTable.open(dir).latest())).isEqualTo(model.sorted());
    } finally {
      deleteTree(root);
    }
  }

  /** The version with another name (its first attribute). */
  private static Version renamed(Version v, String name) {
    List<Object> attributes = new ArrayList<>(v.attributes());
    attributes.set(0, name);
    return v.withAttributes(attributes);
  }

  private static List<VersionChange> changes(List<Change> batch) {
    List<VersionChange> changes = new ArrayList<>();
    for (Change c : batch) {
      if (c.retract()) {
        changes.add(new VersionChange.Retraction(BusinessKey.of(c.key()), at(c.fromHour())));
      } else {
        changes.add(new VersionChange.Upsert(Versions.version(c.key(), c.fromHour(), c.toHour(), c.name()),
            ChangeKind.CORRECT));
      }
    }
    return changes;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Files.copy(p, to.resolve(from.relativize(p).toString()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(p)) {
      for (Path q : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
