package io.dimstream.table.internal.dv;

import io.dimstream.storage.ObjectStore;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The serialised bitmaps of the deletion vectors in files of object-store tables that this process wrote or read,
 * least recently used first out. A DV file never changes once written, so a cached bitmap is never stale; on an
 * object store each one spares a round trip (the next commit that marks rows of the same data file merges with its
 * DV, and every read of that file applies it). Local tables read their DV files directly.
 */
final class DeletionVectorCache {
  /** Enough for the DVs of several thousand data files with tens of thousands of deleted rows each. */
  private static final long MAX_BYTES = 64L << 20;
  private static final Map<String, byte[]> BITMAPS = new LinkedHashMap<>(256, 0.75f, true);
  private static long bytes;

  private DeletionVectorCache() {}

  static boolean applies(ObjectStore store) {
    return !store.location().isLocal();
  }

  private static String key(ObjectStore store, DeletionVectorDescriptor dv) {
    return store.location() + "#" + dv.uniqueId();
  }

  static synchronized byte[] get(ObjectStore store, DeletionVectorDescriptor dv) {
    return BITMAPS.get(key(store, dv));
  }

  static synchronized void put(ObjectStore store, DeletionVectorDescriptor dv, byte[] bitmap) {
    if (bitmap.length > MAX_BYTES / 16) {
      return;
    }
    byte[] old = BITMAPS.put(key(store, dv), bitmap);
    bytes += bitmap.length - (old == null ? 0 : old.length);
    Iterator<byte[]> eldest = BITMAPS.values().iterator();
    while (bytes > MAX_BYTES && eldest.hasNext()) {
      bytes -= eldest.next().length;
      eldest.remove();
    }
  }
}
