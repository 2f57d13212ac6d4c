package io.dimstream.table;

import io.dimstream.model.VersionId;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which versions-topic partition each change of a commit came from, and which partitions the writer owns now. A
 * merge-on-read commit writes the new rows of each partition to files of their own, named {@code p<partition>-…}
 * and tagged {@code dimstream.partition}; compaction rewrites only files the writer owns. Any writer may mark rows
 * deleted in any file (the position index finds a key's row whoever wrote the file).
 *
 * @param partitions the partition of each change's identity; an identity absent here goes to the partition
 *                   {@code allFrom}, or to an unowned file when that is -1
 * @param owned      the partitions this writer owns; its compaction rewrites files of these partitions only
 * @param ownsAll    true when the writer owns every partition of the topic: it may also rewrite unowned files
 * @param allFrom    the partition every change came from, or -1 when {@code partitions} tells
 */
public record FileOwners(Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll, int allFrom) {
  public FileOwners {
    partitions = Map.copyOf(partitions);
    owned = Set.copyOf(owned);
  }

  /** Owners taken from {@code partitions} alone (an identity absent there goes to an unowned file). */
  public FileOwners(Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll) {
    this(partitions, owned, ownsAll, -1);
  }

  /**
   * As the constructor, but when every identity of {@code partitions} came from one partition only that partition is
   * kept: then every change is taken to come from it. The compactor's usual batch (one partition) is so handed over
   * without copying and hashing each of its identities once more.
   */
  public static FileOwners of(Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll) {
    int first = -1;
    for (int p : partitions.values()) {
      if (first < 0) {
        first = p;
      } else if (p != first) {
        return new FileOwners(partitions, owned, ownsAll, -1);
      }
    }
    return new FileOwners(Map.of(), owned, ownsAll, first);
  }

  /** No owners: new files are unowned and compaction may rewrite every file (one writer, as before scale-out). */
  public static FileOwners none() {
    return new FileOwners(Map.of(), Set.of(), true);
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

  /** Whether the writer may remove or rewrite a file owned by {@code owner} (-1: unowned). */
  public boolean mayRewrite(int owner) {
    return owner < 0 ? ownsAll : ownsAll || owned.contains(owner);
  }
}
