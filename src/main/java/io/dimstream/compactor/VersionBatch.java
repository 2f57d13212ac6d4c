package io.dimstream.compactor;

import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Version records read since the last commit: the last record per (key, valid_from) wins, and per partition
 * the offset of the last record read, which becomes the commit's {@code txn} version.
 */
final class VersionBatch {
  private final String appIdPrefix;
  private final Map<VersionId, VersionChange> changes = new LinkedHashMap<>();
  private final Map<Integer, Long> lastOffsets = new TreeMap<>();
  private final Map<Integer, Long> firstOffsets = new TreeMap<>();
  private final Map<VersionId, Integer> partitions = new HashMap<>();
  /** The event records read, in the order read (offset order per partition): kept beside the table at the commit. */
  private final List<io.dimstream.table.EventArchive.Entry> events = new ArrayList<>();
  private int records;

  /** {@code appIdPrefix}: the versions topic's {@link VersionsTopicIdentity#appIdPrefix()}. */
  VersionBatch(String appIdPrefix) {
    this.appIdPrefix = appIdPrefix;
  }

  void add(int partition, long offset, VersionChange change) {
    if (change != null) {
      changes.remove(change.id()); // re-insert so the batch keeps arrival order of the last records
      changes.put(change.id(), change);
      partitions.put(change.id(), partition);
    }
    lastOffsets.merge(partition, offset, Math::max);
    firstOffsets.merge(partition, offset, Math::min);
    records++;
  }

  /** Adds an event record ({@link io.dimstream.topology.EventRecords}): the event store's key and value (null: pruned). */
  void addEvent(int partition, long offset, byte[] storeKey, byte[] value) {
    events.add(new io.dimstream.table.EventArchive.Entry(appIdPrefix + partition, offset, storeKey, value));
    add(partition, offset, null);
  }

  /** The event records read since the last commit, in the order read. */
  List<io.dimstream.table.EventArchive.Entry> events() {
    return Collections.unmodifiableList(events);
  }

  int records() {
    return records;
  }

  boolean isEmpty() {
    return records == 0;
  }

  List<VersionChange> changes() {
    return new ArrayList<>(changes.values());
  }

  /** The {@code txn} markers of this batch: appId {@code <dim>-versions-<topicId>-<partition>} to last offset read. */
  Map<String, Long> txns() {
    Map<String, Long> out = new LinkedHashMap<>();
    lastOffsets.forEach((p, o) -> out.put(appIdPrefix + p, o));
    return out;
  }

  /**
   * Where this batch was read from: appId {@code <dim>-versions-<topicId>-<partition>} to the offset of its first
   * record there.
   * The batch is stale when the table records that offset or a later one (another compactor applied it meanwhile).
   */
  Map<String, Long> readFrom() {
    Map<String, Long> out = new LinkedHashMap<>();
    firstOffsets.forEach((p, o) -> out.put(appIdPrefix + p, o));
    return out;
  }

  Map<Integer, Long> lastOffsets() {
    return Map.copyOf(lastOffsets);
  }

  /** Per partition, the offset of the first record read since the last commit. */
  Map<Integer, Long> firstOffsets() {
    return Map.copyOf(firstOffsets);
  }

  /** The partition each change's identity was read from (the owner of the file its new row goes to). */
  Map<VersionId, Integer> partitions() {
    // a view, not a copy: copying re-hashed every identity of the batch once more per commit; the batch is cleared
    // only after the commit that reads it has returned
    return Collections.unmodifiableMap(partitions);
  }

  void clear() {
    partitions.clear();
    changes.clear();
    events.clear();
    lastOffsets.clear();
    firstOffsets.clear();
    records = 0;
  }
}
