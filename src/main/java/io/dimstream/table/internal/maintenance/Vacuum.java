package io.dimstream.table.internal.maintenance;

import io.dimstream.table.VacuumResult;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.commit.CommitRetry;
import io.dimstream.table.internal.commit.CommitWriter;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.log.SnapshotManager;
import io.dimstream.table.internal.log.TableState;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VACUUM: deletes data files and deletion vector files no snapshot within the retention references, between two
 * logged commits.
 */
public final class Vacuum {
  private static final Logger LOG = LoggerFactory.getLogger(Vacuum.class);

  private final SnapshotManager snapshots;
  private final CommitWriter writer;
  private final CommitRetry retry;
  private final Clock clock;

  public Vacuum(SnapshotManager snapshots, CommitWriter writer, CommitRetry retry, Clock clock) {
    this.snapshots = snapshots;
    this.writer = writer;
    this.retry = retry;
    this.clock = clock;
  }

  /** See {@link io.dimstream.table.DeltaTable#vacuum(Duration)}. */
  public VacuumResult vacuum(TableState s, Duration retention) {
    Path root = writer.root();
    Duration max = TableProperties.tombstoneRetention(s.metadata.configuration());
    if (retention.isNegative() || retention.compareTo(max) > 0) {
      throw TableErrors.badRetention(root, retention, max);
    }
    long cutoff = clock.millis() - retention.toMillis();
    Set<Path> keep = new HashSet<>();
    for (AddFile a : s.adds.values()) {
      keep.add(DataFiles.resolve(root, a.path()).normalize());
      keepDeletionVector(root, a.deletionVector(), keep);
    }
    s.removes.values().stream().filter(r -> r.deletionTimestamp() >= cutoff).forEach(r -> {
      keep.add(DataFiles.resolve(root, r.path()).normalize());
      keepDeletionVector(root, r.deletionVector(), keep);
    });
    List<Path> doomed = new ArrayList<>();
    long bytes = unreferenced(root, keep, cutoff, doomed);
    Map<String, Object> startParams = new LinkedHashMap<>();
    startParams.put("retentionCheckEnabled", true);
    startParams.put("specifiedRetentionMillis", retention.toMillis());
    startParams.put("defaultRetentionMillis", max.toMillis());
    Map<String, String> startMetrics = new LinkedHashMap<>();
    startMetrics.put("numFilesToDelete", Integer.toString(doomed.size()));
    startMetrics.put("sizeOfDataToDelete", Long.toString(bytes));
    appendInfoCommit("VACUUM START", startParams, startMetrics);
    List<String> deleted = new ArrayList<>();
    for (Path f : doomed) {
      try {
        Files.deleteIfExists(f);
        deleted.add(root.relativize(f).toString().replace('\\', '/'));
      } catch (IOException e) {
        LOG.warn("{}: vacuum could not delete {}: {}", root, f, e.toString());
      }
    }
    Map<String, String> endMetrics = new LinkedHashMap<>();
    endMetrics.put("numDeletedFiles", Integer.toString(deleted.size()));
    endMetrics.put("numVacuumedDirectories", "0");
    appendInfoCommit("VACUUM END", Map.of("status", "COMPLETED"), endMetrics);
    LOG.info("{}: vacuum deleted {} files ({} bytes) older than {}", root, deleted.size(), bytes, retention);
    return new VacuumResult(deleted, bytes);
  }

  /** A DV file is as much a part of a snapshot as its data file: the rows it deletes would come back without it. */
  private static void keepDeletionVector(Path root, DeletionVectorDescriptor dv, Set<Path> keep) {
    if (dv != null && !dv.isInline()) {
      keep.add(dv.file(root).normalize());
    }
  }

  /** Data files (never under {@code _}- or {@code .}-directories) not in {@code keep} and older than the cutoff. */
  private static long unreferenced(Path root, Set<Path> keep, long cutoff, List<Path> doomed) {
    long[] bytes = {0};
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
          return !dir.equals(root) && (name.startsWith("_") || name.startsWith(".")) ? FileVisitResult.SKIP_SUBTREE
              : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          String name = file.getFileName().toString();
          if (!name.startsWith("_") && !name.startsWith(".") && !keep.contains(file.normalize())
              && attrs.lastModifiedTime().toMillis() < cutoff) {
            doomed.add(file);
            bytes[0] += attrs.size();
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw TableErrors.io("list the table directory", root, e);
    }
    return bytes[0];
  }

  /** A commit of a commitInfo alone, on the latest version (vacuum changes no table state). */
  private void appendInfoCommit(String operation, Map<String, ?> params, Map<String, String> metrics) {
    retry.run(attempt -> {
      TableState s = snapshots.refresh();
      long now = writer.timestampAfter(s);
      writer.write(s.version + 1, List.of(CommitInfo.of(now, operation, params, metrics, null, 0)), now, List.of(),
          s);
      return null;
    });
  }
}
