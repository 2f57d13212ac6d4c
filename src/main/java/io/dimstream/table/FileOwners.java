package io.dimstream.table;

import io.dimstream.model.VersionId;
import java.util.Map;
import java.util.Set;

/**
 * Which versions-topic partition each change of a commit came from, and which partitions the writer owns now. A
 * merge-on-read commit writes the new rows of each partition to files of their own, named {@code p<partition>-…}
 * and tagged {@code dimstream.partition}; compaction rewrites only files the writer owns. Any writer may mark rows
 * deleted in any file (the position index finds a key's row whoever wrote the file).
 *
 * @param partitions the partition of each change's identity; an identity absent here goes to an unowned file
 * @param owned      the partitions this writer owns; its compaction rewrites files of these partitions only
 * @param ownsAll    true when the writer owns every partition of the topic: it may also rewrite unowned files
 */
public record FileOwners(Map<VersionId, Integer> partitions, Set<Integer> owned, boolean ownsAll) {
  public FileOwners {
    partitions = Map.copyOf(partitions);
    owned = Set.copyOf(owned);
  }

  /** No owners: new files are unowned and compaction may rewrite every file (one writer, as before scale-out). */
  public static FileOwners none() {
    return new FileOwners(Map.of(), Set.of(), true);
  }

  /** Whether the writer may remove or rewrite a file owned by {@code owner} (-1: unowned). */
  public boolean mayRewrite(int owner) {
    return owner < 0 ? ownsAll : ownsAll || owned.contains(owner);
  }
}
