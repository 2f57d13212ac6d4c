package io.dimstream.table.internal.commit;

import io.dimstream.model.VersionId;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which versions-topic partition each change of a commit came from. A merge-on-read commit writes the new rows of
 * each partition to files of their own, named {@code p<partition>-…} and tagged {@code dimstream.partition}, which
 * only the writer owning that partition compacts; any writer may mark rows deleted in any file (the position index
 * finds a key's row whoever wrote the file). An identity absent from the map goes to the partition every change came
 * from, when there is one, else to an unowned file.
 *
 * <p>A class, not a record: with {@code allFrom} set, {@code partitions} is empty, so a public accessor of it would
 * answer "no partition" for every change; {@link #partitionOf} and {@link #sources} are the only ways to ask.
 */
public final class SourcePartitions {
  private static final SourcePartitions NONE = new SourcePartitions(Map.of(), -1);
  private final Map<VersionId, Integer> partitions;
  private final int allFrom;

  private SourcePartitions(Map<VersionId, Integer> partitions, int allFrom) {
    this.partitions = Map.copyOf(partitions);
    this.allFrom = allFrom;
  }

  /**
   * The partitions of {@code partitions}; when every identity came from one partition only that partition is kept,
   * and every change is taken to come from it. The compactor's usual batch (one partition) is so handed over without
   * copying and hashing each of its identities once more.
   */
  public static SourcePartitions of(Map<VersionId, Integer> partitions) {
    int first = -1;
    for (int p : partitions.values()) {
      if (first < 0) {
        first = p;
      } else if (p != first) {
        return new SourcePartitions(partitions, -1);
      }
    }
    return first < 0 ? NONE : new SourcePartitions(Map.of(), first);
  }

  /** No partitions: new rows go to unowned files (one writer, as before scale-out). */
  public static SourcePartitions none() {
    return NONE;
  }

  /** The partition the change of {@code id} came from; -1 when none (its new row goes to an unowned file). */
  public int partitionOf(VersionId id) {
    return allFrom >= 0 ? allFrom : partitions.getOrDefault(id, -1);
  }

  /** The partitions the changes came from; empty when every new row goes to unowned files. */
  public Set<Integer> sources() {
    if (allFrom >= 0) {
      return Set.of(allFrom);
    }
    return new HashSet<>(partitions.values());
  }
}
