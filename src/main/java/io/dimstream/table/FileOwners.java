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
 * <p>It holds the partition of each change's identity (an identity absent there goes to the partition every change
 * came from, when one is set, else to an unowned file), the partitions this writer owns (its compaction rewrites files
 * of these partitions only), and whether it owns every partition of the topic (then it may also rewrite unowned
 * files).
 *
 * <p>A class, not a record: with {@code allFrom} set, {@code partitions} is empty, so a public accessor of it would
 * answer "no partition" for every change; {@link #partitionOf} and {@link #sources} are the only ways to ask.
 */
public final class FileOwners {
  private final Map<VersionId, Integer> partitions;
  private final Set<Integer> owned;
  private final boolean ownsAll;
  private final int allFrom;

  private FileOwners(Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll, int allFrom) {
    this.partitions = Map.copyOf(partitions);
    this.owned = Set.copyOf(owned);
    this.ownsAll = ownsAll;
    this.allFrom = allFrom;
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
