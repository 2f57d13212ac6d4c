package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.files.FileOwner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers commit on one snapshot of a merge-on-read table (Delta's rule for concurrent writes): when the winner
 * touched none of the loser's files the loser lands on the next version as planned; when it did, the loser re-plans
 * on the new snapshot. Either way no version is lost or doubled, and Kernel reads what our reader reads.
 */
class ConcurrentWritersTest {
  @TempDir
  Path dir;

  /** Starts at the wall clock: vacuum compares it with the files' modification times. */
  private final MutableClock clock = new MutableClock(Instant.now());

  private DeltaTable create() {
    return DeltaTable.create(dir, customers(), Map.of(), new TableOptions(clock, 5, Duration.ofMillis(1)));
  }

  /** Keys {@code from..to} opened at hour 0, each owned by {@code owner} (-1: no owner, one file for all). */
  private static List<Version> open(DeltaTable table, long from, long to, int owner) {
    List<Version> rows = new ArrayList<>();
    for (long k = from; k <= to; k++) {
      rows.add(version(k, 0, null, "v" + k));
    }
    table.newCommit(Operation.WRITE).partitions(owners(rows, owner)).apply(upserts(rows.toArray(Version[]::new)));
    return rows;
  }

  private static Map<VersionId, Integer> owners(List<Version> rows, int owner) {
    Map<VersionId, Integer> partitions = new HashMap<>();
    if (owner >= 0) {
      rows.forEach(v -> partitions.put(VersionId.of(v), owner));
    }
    return partitions;
  }

  /** The close-out at {@code hour} of each key's first version and its new one, as the topology emits them. */
  private static List<VersionChange> change(long from, long to, long hour) {
    List<Version> rows = new ArrayList<>();
    for (long k = from; k <= to; k++) {
      rows.add(version(k, 0, hour, "v" + k));
      rows.add(version(k, hour, null, "w" + k));
    }
    return upserts(rows.toArray(Version[]::new));
  }

  private static Map<VersionId, Integer> ownersOf(List<VersionChange> changes, int owner) {
    Map<VersionId, Integer> partitions = new HashMap<>();
    changes.forEach(c -> partitions.put(c.id(), owner));
    return partitions;
  }

  /** Keys {@code from..to} changed at {@code hour}: the closed first version and the new current one. */
  private static List<Version> changed(long from, long to, long hour) {
    List<Version> rows = new ArrayList<>();
    for (long k = from; k <= to; k++) {
      rows.add(version(k, 0, hour, "v" + k));
      rows.add(version(k, hour, null, "w" + k));
    }
    return rows;
  }

  @Test
  void shouldLandBothCommitsWhenTheWinnerTouchedNoneOfTheLosersFiles() {
    DeltaTable table = create();
    open(table, 1, 50, 0);
    open(table, 51, 100, 1);
    Transaction first = table.startTransaction();
    Transaction second = table.startTransaction();
    long read = first.snapshot().version();
    assertThat(second.snapshot().version()).isEqualTo(read);

    List<VersionChange> p0 = change(1, 10, 5);
    List<VersionChange> p1 = change(51, 60, 5);
    CommitResult won = first.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 7L))
        .partitions(ownersOf(p0, 0)).apply(p0);
    CommitResult rebased = second.newCommit(Operation.MERGE).txns(Map.of("customers-versions-1", 9L))
        .partitions(ownersOf(p1, 1)).apply(p1);

    assertThat(won.version()).isEqualTo(read + 1);
    assertThat(rebased.committed()).isTrue();
    assertThat(rebased.version()).as("written as planned on top of the winner").isEqualTo(read + 2);
    assertThat(rebased.attempts()).as("no re-plan").isEqualTo(1);
    List<Version> expected = new ArrayList<>(changed(1, 10, 5));
    expected.addAll(changed(51, 60, 5));
    for (long k = 11; k <= 50; k++) {
      expected.add(version(k, 0, null, "v" + k));
    }
    for (long k = 61; k <= 100; k++) {
      expected.add(version(k, 0, null, "v" + k));
    }
    assertThat(sorted(KernelReader.latest(dir, customers()))).containsExactlyElementsOf(sorted(expected));
    assertThat(sorted(Versions.scan(DeltaTable.open(dir).latest()))).containsExactlyElementsOf(sorted(expected));
    Snapshot latest = DeltaTable.open(dir).latest();
    assertThat(latest.txnVersions()).containsEntry("customers-versions-0", 7L).containsEntry("customers-versions-1", 9L);
    for (AddFile f : latest.state.adds.values()) {
      assertThat(FileOwner.of(f)).as("owner of %s", f.path()).isPresent();
      assertThat(f.path()).matches(".*/p[01]-[^/]*\\.parquet");
    }
  }

  @Test
  void shouldReplanWhenTheWinnerMarkedRowsInTheLosersFile() {
    DeltaTable table = create();
    open(table, 1, 100, -1); // one unowned file, as a bulk load or another engine writes it
    Transaction first = table.startTransaction();
    Transaction second = table.startTransaction();
    long read = first.snapshot().version();

    List<VersionChange> p0 = change(1, 10, 5);
    List<VersionChange> p1 = change(51, 60, 6);
    first.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 7L)).partitions(ownersOf(p0, 0)).apply(p0);
    assertThatThrownBy(() -> second.newCommit(Operation.MERGE).txns(Map.of("customers-versions-1", 9L))
        .partitions(ownersOf(p1, 1)).apply(p1))
        .isInstanceOf(CommitConflictException.class);
    assertThat(table.latest().version()).as("the loser wrote nothing").isEqualTo(read + 1);

    // what DeltaTable.commit does after a conflict: a new transaction plans on the winner's snapshot
    CommitResult replanned = table.startTransaction().newCommit(Operation.MERGE)
        .txns(Map.of("customers-versions-1", 9L)).partitions(ownersOf(p1, 1)).apply(p1);
    assertThat(replanned.version()).isEqualTo(read + 2);
    List<Version> expected = new ArrayList<>(changed(1, 10, 5));
    expected.addAll(changed(51, 60, 6));
    for (long k = 11; k <= 100; k++) {
      if (k < 51 || k > 60) {
        expected.add(version(k, 0, null, "v" + k));
      }
    }
    assertThat(sorted(KernelReader.latest(dir, customers()))).containsExactlyElementsOf(sorted(expected));
    assertThat(sorted(Versions.scan(DeltaTable.open(dir).latest()))).containsExactlyElementsOf(sorted(expected));
  }

  @Test
  void shouldReplanWhenTheWinnerRecordedTheSameTxn() {
    DeltaTable table = create();
    open(table, 1, 50, 0);
    open(table, 51, 100, 1);
    Transaction zombie = table.startTransaction();
    List<VersionChange> p0 = change(1, 10, 5);
    table.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 7L)).partitions(ownersOf(p0, 0)).apply(p0);
    long before = table.latest().version();

    assertThatThrownBy(() -> zombie.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 7L))
        .partitions(ownersOf(p0, 0)).apply(p0))
        .isInstanceOf(CommitConflictException.class);
    CommitResult again = table.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 7L))
        .partitions(ownersOf(p0, 0)).apply(p0);
    assertThat(again.committed()).as("the re-plan sees the batch is already in the table").isFalse();
    assertThat(table.latest().version()).isEqualTo(before);
  }

  @Test
  void shouldRefuseABatchReadFromAPositionAnotherWriterHasPassedEvenWhenItsMarkerIsAhead() {
    DeltaTable table = create();
    open(table, 1, 50, 0);
    // the zombie read offsets 10..20 of partition 0 and plans on this snapshot; the new owner applies 10..15 first
    Transaction zombie = table.startTransaction();
    List<VersionChange> newOwner = change(1, 5, 5);
    table.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 15L)).partitions(ownersOf(newOwner, 0))
        .fence(new TxnFence(Map.of("customers-versions-0", 10L))).apply(newOwner);
    long before = table.latest().version();
    List<VersionChange> stale = change(1, 10, 5);

    assertThatThrownBy(() -> zombie.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 20L))
        .partitions(ownersOf(stale, 0)).fence(new TxnFence(Map.of("customers-versions-0", 10L))).apply(stale))
        .as("lost the race for the version: re-planned, not rebased").isInstanceOf(CommitConflictException.class);
    assertThatThrownBy(() -> table.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 20L))
        .partitions(ownersOf(stale, 0)).fence(new TxnFence(Map.of("customers-versions-0", 10L))).apply(stale))
        .isInstanceOf(TxnOverlapException.class)
        .hasMessageContaining("already records txn versions {customers-versions-0=15}")
        .hasMessageContaining("re-read the source from the offsets the table records");
    assertThat(table.latest().version()).as("nothing written").isEqualTo(before);
    assertThat(table.latest().txnVersions()).containsEntry("customers-versions-0", 15L);

    // without a fence the markers alone cannot tell: 20 is above 15, and the stale batch lands
    CommitResult unfenced = table.newCommit(Operation.MERGE).txns(Map.of("customers-versions-0", 20L))
        .partitions(ownersOf(stale, 0)).apply(stale);
    assertThat(unfenced.committed()).isTrue();
  }

  @Test
  void shouldVacuumTheDeletionVectorFileOfACommitThatLostItsRace() throws IOException {
    DeltaTable table = create();
    open(table, 1, 4_000, -1);
    Transaction first = table.startTransaction();
    Transaction second = table.startTransaction();
    // every other key: a bitmap too large to inline, so the loser writes a deletion-vector file
    List<VersionChange> p0 = new ArrayList<>();
    List<VersionChange> p1 = new ArrayList<>();
    for (long k = 1; k <= 4_000; k += 2) {
      p0.addAll(change(k, k, 5));
      p1.addAll(change(k + 1, k + 1, 6));
    }
    first.newCommit(Operation.MERGE).partitions(ownersOf(p0, 0)).apply(p0);
    List<Path> dvsBefore = dvFiles();
    assertThatThrownBy(() -> second.newCommit(Operation.MERGE).partitions(ownersOf(p1, 1)).apply(p1))
        .isInstanceOf(CommitConflictException.class);
    List<Path> orphans = dvFiles();
    orphans.removeAll(dvsBefore);
    assertThat(orphans).as("the loser's deletion vector file").isNotEmpty();

    clock.advance(Duration.ofMinutes(1));
    VacuumResult vacuumed = table.vacuum(Duration.ZERO);
    assertThat(vacuumed.deletedFiles().size()).isGreaterThanOrEqualTo(orphans.size());
    for (Path p : orphans) {
      assertThat(p).as("vacuumed").doesNotExist();
    }
    assertThat(dvFiles()).as("the winner's deletion vectors stay").containsExactlyInAnyOrderElementsOf(dvsBefore);
    List<Version> expected = new ArrayList<>();
    for (long k = 1; k <= 4_000; k++) {
      if (k % 2 == 1) {
        expected.addAll(changed(k, k, 5));
      } else {
        expected.add(version(k, 0, null, "v" + k));
      }
    }
    assertThat(sorted(KernelReader.latest(dir, customers()))).containsExactlyElementsOf(sorted(expected));
  }

  @Test
  void shouldMatchTheModelWhenTwoWritersCommitAndCompactConcurrently() throws Exception {
    DeltaTable.create(dir, customers(), Map.of("dimstream.compaction.smallFileRows", "40",
        "dimstream.compaction.deletedFraction", "0.2"), new TableOptions(clock, 50, Duration.ofMillis(1)));
    Map<VersionId, Version> model = new java.util.concurrent.ConcurrentHashMap<>();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int w = 0; w < 2; w++) {
      int writer = w;
      Thread t = new Thread(() -> {
        DeltaTable mine = DeltaTable.open(dir, new TableOptions(clock, 50, Duration.ofMillis(1)));
        java.util.Random random = new java.util.Random(writer);
        Map<Long, List<Version>> history = new HashMap<>();
        Set<Integer> owned = Set.of(writer, writer + 2);
        for (int round = 1; round <= 25; round++) {
          List<VersionChange> batch = new ArrayList<>();
          Map<VersionId, Integer> partitions = new HashMap<>();
          for (int i = 0; i < 15; i++) {
            long key = 4L * random.nextInt(60) + (random.nextBoolean() ? writer : writer + 2);
            if (batch.stream().anyMatch(c -> c.id().key().values().get(0).equals(key))) {
              continue;
            }
            List<Version> h = history.computeIfAbsent(key, k -> new ArrayList<>());
            List<VersionChange> changes = new ArrayList<>();
            if (!h.isEmpty() && random.nextInt(4) == 0) {
              Version old = h.get(random.nextInt(h.size())); // a correction of any version, open or closed
              Version fixed = version(key, hours(old.validFrom()), old.validTo() == null ? null
                  : hours(old.validTo()), "fix" + round);
              h.set(h.indexOf(old), fixed);
              changes.add(Versions.upsert(fixed));
            } else if (!h.isEmpty() && random.nextInt(6) == 0) {
              Version last = h.remove(h.size() - 1); // a retraction
              changes.add(Versions.retract(key, hours(last.validFrom())));
            } else {
              long hour = 100L * round;
              if (!h.isEmpty() && h.get(h.size() - 1).validTo() == null) {
                Version open = h.remove(h.size() - 1);
                Version closed = version(key, hours(open.validFrom()), hour, open.attributes().get(0).toString());
                h.add(closed);
                changes.add(Versions.upsert(closed));
              }
              Version next = version(key, hour, null, "r" + round);
              h.add(next);
              changes.add(Versions.upsert(next));
            }
            for (VersionChange c : changes) {
              batch.add(c);
              partitions.put(c.id(), (int) (key % 4));
            }
          }
          mine.newCommit(Operation.MERGE).partitions(partitions).apply(batch);
          mine.newCompaction().owners(new Ownership(owned, false)).runCycle();
        }
        history.values().forEach(vs -> vs.forEach(v -> model.put(VersionId.of(v), v)));
      });
      t.setUncaughtExceptionHandler((th, e) -> failures.add(e));
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failures).isEmpty();
    List<Version> expected = sorted(model.values());
    assertThat(sorted(Versions.scan(DeltaTable.open(dir).latest()))).containsExactlyElementsOf(expected);
    assertThat(sorted(KernelReader.latest(dir, customers()))).containsExactlyElementsOf(expected);
  }

  private static long hours(io.dimstream.model.Sequence s) {
    return (s.first() / 1_000_000L - Versions.T0.getEpochSecond()) / 3600;
  }

  private List<Path> dvFiles() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return new ArrayList<>(files.filter(p -> p.getFileName().toString().startsWith("deletion_vector_")).toList());
    }
  }
}
