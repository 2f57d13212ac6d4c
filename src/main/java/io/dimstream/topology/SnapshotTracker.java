package io.dimstream.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which keys of one SCD2 task's partition the streamed snapshot carried, and which end-of-snapshot markers arrived,
 * in the {@link DimensionTopology#SNAPSHOT_STORE} store: canonical key bytes → the id of the last snapshot that
 * carried the key, and one progress entry (under a key no business key has) for the newest snapshot. The key entries
 * are deleted when a snapshot ends ({@link #forgetKeys}), so the store holds at most one entry per key of the
 * partition while a snapshot streams, and only the progress entry between snapshots.
 */
final class SnapshotTracker {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotTracker.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Bytes PROGRESS = Bytes.wrap(new byte[] {0, 'p'});

  private final KeyValueStore<Bytes, byte[]> store;
  private final DimensionSpec spec;

  SnapshotTracker(KeyValueStore<Bytes, byte[]> store, DimensionSpec spec) {
    this.store = store;
    this.spec = spec;
  }

  /** A snapshot whose markers have all arrived: close every key of the partition it did not carry, at {@code at}. */
  record Ended(String id, Sequence at) {}

  /** Records that the snapshot carried the key (a row of it was applied), unless the snapshot already ended. */
  void carried(byte[] keyBytes, SnapshotMarkers.SnapshotRef ref) {
    ObjectNode progress = progressFor(ref);
    // an ended snapshot never asks again which keys it carried
    if (progress != null && !progress.path("ended").asBoolean()) {
      store.put(Bytes.wrap(keyBytes), ref.id().getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Whether the snapshot {@code id} carried the key. */
  boolean wasCarried(byte[] keyBytes, String id) {
    byte[] v = store.get(Bytes.wrap(keyBytes));
    return v != null && Arrays.equals(v, id.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Counts one marker; returns the snapshot when this was its last missing marker. A marker of a snapshot older than
   * the newest one seen, or of one that already ended, is ignored.
   */
  Optional<Ended> marker(SnapshotMarkers.Marker m) {
    ObjectNode progress = progressFor(m.snapshot());
    if (progress == null || progress.path("ended").asBoolean()) {
      return Optional.empty();
    }
    TreeSet<Integer> seen = new TreeSet<>();
    progress.withArray("seen").forEach(n -> seen.add(n.asInt()));
    seen.add(m.partition());
    ArrayNode arr = progress.putArray("seen");
    seen.forEach(arr::add);
    boolean ended = seen.size() >= m.partitions();
    progress.put("ended", ended);
    store.put(PROGRESS, progress.toString().getBytes(StandardCharsets.UTF_8));
    return ended ? Optional.of(new Ended(m.snapshot().id(), sequence(m.snapshot().at()))) : Optional.empty();
  }

  /**
   * Deletes every key's entry, keeping the progress entry; call it once the snapshot in progress ended. Then no entry
   * can be asked for again: the ended snapshot's were read by its end, and those of older snapshots (superseded,
   * their markers ignored) never will be. Deletes in batches of {@code batch} keys, so memory stays bounded however
   * many keys the partition has; the work is one pass over the entries, like the end of the snapshot's own pass over
   * the current rows.
   *
   * @return the number of entries deleted
   */
  long forgetKeys(int batch) {
    long deleted = 0;
    while (true) {
      List<Bytes> keys = new ArrayList<>(batch);
      try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
        while (it.hasNext() && keys.size() < batch) {
          Bytes k = it.next().key;
          if (!k.equals(PROGRESS)) {
            keys.add(k);
          }
        }
      }
      if (keys.isEmpty()) {
        return deleted;
      }
      keys.forEach(store::delete);
      deleted += keys.size();
    }
  }

  /**
   * The progress entry of {@code ref}, started when it is newer (by its sequence) than the snapshot in progress, which
   * it then supersedes; null when {@code ref} is older than, or as old as but other than, the newest snapshot seen.
   */
  private ObjectNode progressFor(SnapshotMarkers.SnapshotRef ref) {
    long at = sequence(ref.at()).first();
    byte[] raw = store.get(PROGRESS);
    ObjectNode current = raw == null ? null : read(raw);
    if (current != null && current.path("id").asText().equals(ref.id())) {
      return current;
    }
    if (current != null && at <= current.path("at").asLong()) {
      LOG.warn("Ignoring snapshot {} at {}: snapshot {} is newer", ref.id(), ref.at(), current.path("id").asText());
      return null;
    }
    if (current != null && !current.path("ended").asBoolean()) {
      LOG.warn("Snapshot {} started before snapshot {} ended; {} closes no keys", ref.id(),
          current.path("id").asText(), current.path("id").asText());
    }
    ObjectNode p = JSON.createObjectNode();
    p.put("id", ref.id());
    p.put("at", at);
    p.putArray("seen");
    p.put("ended", false);
    store.put(PROGRESS, p.toString().getBytes(StandardCharsets.UTF_8));
    return p;
  }

  private Sequence sequence(String at) {
    return parseAt(spec, at);
  }

  /**
   * The snapshot's sequence from its text, read as the first sequence column (further columns of a composite
   * sequence are 0).
   *
   * @throws RuntimeException when the text is no value of that column
   */
  static Sequence parseAt(DimensionSpec spec, String at) {
    Column first = spec.sequenceColumns().get(0);
    JsonNode node;
    try {
      node = JSON.getNodeFactory().numberNode(Long.parseLong(at.trim()));
    } catch (NumberFormatException e) {
      node = JSON.getNodeFactory().textNode(at.trim());
    }
    long[] parts = new long[spec.sequence().size()];
    parts[0] = ColumnValues.sequenceLong(ColumnValues.fromJson(node, first.type()), first.type());
    return Sequence.of(parts);
  }

  private static ObjectNode read(byte[] raw) {
    try {
      return (ObjectNode) JSON.readTree(raw);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("unreadable snapshot progress in the store", e);
    }
  }
}
