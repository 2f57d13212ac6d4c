package io.dimstream.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Event records: the writes of the topology's event store (an event stored, rewritten by a re-fold, or pruned), sent
 * to the versions topic in the same transaction as the version records they go with, so that the compactor keeps them
 * beside the table at exactly the offsets its rows reflect. They are what lets a later takeover rebuild the state the
 * rows cannot show (no-change upserts, a type-1 column's earlier values, deletes with nothing open). An event record
 * carries the header {@value #KIND_HEADER} = {@value #EVENT}; its key is {@link #KEY_PREFIX} followed by the event
 * store's key, its value the store's value (null: the entry was pruned). Every reader of the versions topic that wants
 * versions skips them by that header.
 */
public final class EventRecords {
  private EventRecords() {}

  /** The header that says what kind of record a versions-topic record is, when it is not a version. */
  public static final String KIND_HEADER = "dimstream.kind";
  /** The {@value #KIND_HEADER} value of an event record. */
  public static final String EVENT = "event";
  private static final byte[] EVENT_BYTES = EVENT.getBytes(StandardCharsets.UTF_8);
  /**
   * Starts every event record key, so that topic compaction never takes an event record and a version for the same
   * key: a JSON version key starts with a brace, and an Avro one would have to equal prefix, canonical key bytes and
   * sequence bytes byte for byte. Readers tell the two apart by the header, never by the key.
   */
  static final byte[] KEY_PREFIX = {0, 'd', 's', 'e', 'v', 0};

  /** Whether a versions-topic record whose {@value #KIND_HEADER} header has this value (null: none) is an event record. */
  public static boolean isEventKind(byte[] kind) {
    return kind != null && Arrays.equals(kind, EVENT_BYTES);
  }

  /** The {@value #KIND_HEADER} value of an event record. */
  public static byte[] eventKind() {
    return EVENT_BYTES.clone();
  }

  /** The record key of the event store's entry {@code storeKey}. */
  public static byte[] recordKey(byte[] storeKey) {
    byte[] out = Arrays.copyOf(KEY_PREFIX, KEY_PREFIX.length + storeKey.length);
    System.arraycopy(storeKey, 0, out, KEY_PREFIX.length, storeKey.length);
    return out;
  }

  /**
   * The event store's key of an event record's key.
   *
   * @throws IllegalArgumentException when {@code recordKey} is not an event record's
   */
  public static byte[] storeKey(byte[] recordKey) {
    if (recordKey == null || recordKey.length < KEY_PREFIX.length
        || !Arrays.equals(recordKey, 0, KEY_PREFIX.length, KEY_PREFIX, 0, KEY_PREFIX.length)) {
      throw new IllegalArgumentException("not an event record key: " + (recordKey == null ? "null"
          : recordKey.length + " bytes"));
    }
    return Arrays.copyOfRange(recordKey, KEY_PREFIX.length, recordKey.length);
  }
}
