package io.dimstream.table.internal.index;

import io.dimstream.model.Version;
import java.util.List;

/**
 * A Bloom filter of the version identities of one data file's live rows (about 10 bits per row, under 1 % false
 * positives): "no" is certain, "maybe" means read the file.
 */
public final class IdentityFilter {
  private static final int HASHES = 6;

  private final long[] bits;
  private final long mask;
  /** The deleted rows of the file when the filter was built: a filter covers the same or a later deletion vector. */
  private final long deletedRows;

  private IdentityFilter(long[] bits, long deletedRows) {
    this.bits = bits;
    this.mask = (long) bits.length * 64 - 1;
    this.deletedRows = deletedRows;
  }

  /** A filter of {@code fingerprints} ({@link #fingerprint}) of a file whose deletion vector deletes {@code deletedRows}. */
  public static IdentityFilter of(long[] fingerprints, int count, long deletedRows) {
    // a power of two of 64-bit words, at least 10 bits per row
    int words = Integer.highestOneBit(Math.max(1, (int) Math.min(1 << 26, (count * 10L + 63) / 64)) * 2 - 1);
    IdentityFilter f = new IdentityFilter(new long[words], deletedRows);
    for (int i = 0; i < count; i++) {
      f.add(fingerprints[i]);
    }
    return f;
  }

  /** A filter of the identities of {@code rows}, for a new file (no deletion vector). */
  public static IdentityFilter ofRows(List<Version> rows) {
    long[] fingerprints = new long[rows.size()];
    for (int i = 0; i < fingerprints.length; i++) {
      Version v = rows.get(i);
      fingerprints[i] = fingerprint(IdentityBytes.of(v.key(), v.validFrom()));
    }
    return of(fingerprints, fingerprints.length, 0);
  }

  /** A 64-bit hash of {@link IdentityBytes}. */
  public static long fingerprint(byte[] identity) {
    long h = 0xcbf29ce484222325L;
    for (byte b : identity) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    // FNV alone mixes the last bytes (valid_from's low bits) poorly into the high bits: finish as murmur3 does
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    return h ^ (h >>> 33);
  }

  /** Whether this filter may be used for a file whose deletion vector now deletes {@code deletedRowsNow} rows. */
  public boolean covers(long deletedRowsNow) {
    return deletedRowsNow >= deletedRows;
  }

  /** False only when no live row of the file has this identity. */
  public boolean mightContain(long fingerprint) {
    long h1 = fingerprint;
    long h2 = (fingerprint >>> 32) | 1;
    for (int i = 0; i < HASHES; i++) {
      long bit = (h1 + i * h2) & mask;
      if ((bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** Heap bytes of the bit array. */
  public long bytes() {
    return bits.length * 8L;
  }

  private void add(long fingerprint) {
    long h1 = fingerprint;
    long h2 = (fingerprint >>> 32) | 1;
    for (int i = 0; i < HASHES; i++) {
      long bit = (h1 + i * h2) & mask;
      bits[(int) (bit >>> 6)] |= 1L << bit;
    }
  }
}
