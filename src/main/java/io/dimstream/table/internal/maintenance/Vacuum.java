package io.dimstream.table.internal.maintenance;

import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
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
import java.time.Clock;
import java.time.Duration;
import io.dimstream.table.internal.cdc.ChangeDataFiles;
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
    ObjectStore root = writer.root();
    Duration max = TableProperties.tombstoneRetention(s.metadata.configuration());
    if (retention.isNegative() || retention.compareTo(max) > 0) {
      throw TableErrors.badRetention(root, retention, max);
    }
    long cutoff = clock.millis() - retention.toMillis();
    Set<String> keep = new HashSet<>();
    for (AddFile a : s.adds.values()) {
      keep.add(DataFiles.key(root, a.path()));
      keepDeletionVector(root, a.deletionVector(), keep);
    }
    s.removes.values().stream().filter(r -> r.deletionTimestamp() >= cutoff).forEach(r -> {
      keep.add(DataFiles.key(root, r.path()));
      keepDeletionVector(root, r.deletionVector(), keep);
    });
    List<String> doomed = new ArrayList<>();
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
    for (String f : doomed) {
      try {
        root.delete(f);
        deleted.add(f);
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
  private static void keepDeletionVector(ObjectStore root, DeletionVectorDescriptor dv, Set<String> keep) {
    if (dv != null && !dv.isInline()) {
      keep.add(dv.key(root));
    }
  }

  /**
   * Data and change data files (nothing else under {@code _}- or {@code .}-directories) not in {@code keep} and older
   * than the cutoff.
   */
  private static long unreferenced(ObjectStore root, Set<String> keep, long cutoff, List<String> doomed) {
    long bytes = 0;
    List<ObjectInfo> all;
    try {
      all = root.list("", null);
    } catch (IOException e) {
      throw TableErrors.io("list the table directory", root, e);
    }
    for (ObjectInfo o : all) {
      if (!hidden(o.key()) && !keep.contains(o.key()) && o.lastModifiedMillis() < cutoff) {
        doomed.add(o.key());
        bytes += o.size();
      }
    }
    return bytes;
  }

  /**
   * Whether a segment of the key starts with '_' or '.' (the log, the lease, temporary files). Change data files are
   * not hidden: no snapshot references them, so like a removed data file each goes once it is older than the
   * retention (the change data feed of those versions can then no longer be read, as with Delta Spark's vacuum).
   */
  private static boolean hidden(String key) {
    String[] segments = key.split("/");
    for (int i = 0; i < segments.length; i++) {
      String segment = segments[i];
      if (i == 0 && segment.equals(ChangeDataFiles.DIRECTORY) && segments.length > 1) {
        continue;
      }
      if (segment.startsWith("_") || segment.startsWith(".")) {
        return true;
      }
    }
    return false;
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
