package io.dimstream.table;

import java.util.Set;

/**
 * Which versions-topic partitions a writer of a shared (merge-on-read) table owns now, and so which data files its
 * compaction may rewrite: files tagged with one of its partitions, and unowned files (a bulk load's, or Spark's)
 * only when it owns every partition of the topic, since no other writer would ever compact them then.
 *
 * @param partitions the partitions the writer reads now
 * @param ownsAll    whether those are all the topic's partitions
 */
public record Ownership(Set<Integer> partitions, boolean ownsAll) {
  private static final Ownership ALL = new Ownership(Set.of(), true);

  public Ownership {
    partitions = Set.copyOf(partitions);
  }

  /** The only writer of the table: it may rewrite every file. */
  public static Ownership all() {
    return ALL;
  }

  /** The writer reads {@code partitions} of a topic of {@code topicPartitions} (0 when not known yet). */
  public static Ownership of(Set<Integer> partitions, int topicPartitions) {
    return new Ownership(partitions, topicPartitions > 0 && partitions.size() >= topicPartitions);
  }

  /** Whether the writer may remove or rewrite a file owned by partition {@code owner} (-1: unowned). */
  public boolean mayRewrite(int owner) {
    return ownsAll || owner >= 0 && partitions.contains(owner);
  }
}
