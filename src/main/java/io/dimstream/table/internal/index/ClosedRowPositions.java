package io.dimstream.table.internal.index;

import io.dimstream.model.Version;
import java.util.Arrays;
import java.util.List;

/**
 * The row positions of one closed file's identities, sorted by a 96-bit hash of the identity (the 64-bit
 * {@link IdentityFilter#fingerprint} and a 32-bit {@link #check}): a late correction finds its row without reading the
 * file. 16 bytes per row. A position is physical, so a later deletion vector never moves it: the caller skips the
 * positions the file's deletion vector now deletes.
 */
public final class ClosedRowPositions {
  /** {@link #find}: no row of the file has the identity. */
  public static final long ABSENT = -1;
  /** {@link #find}: two rows share the identity's hash; the caller reads the file instead. */
  public static final long AMBIGUOUS = -2;

  /** The fingerprint's high 32 bits above the row position, sorted as unsigned. */
  private final long[] packed;
  /** The fingerprint's low 32 bits, in the order of {@link #packed}. */
  private final int[] lows;
  /** {@link #check} of each identity, in the order of {@link #packed}. */
  private final int[] checks;
  /** The deleted rows of the file when the positions were taken: they hold every row live then. */
  private final long deletedRows;

  private ClosedRowPositions(long[] packed, int[] lows, int[] checks, long deletedRows) {
    this.packed = packed;
    this.lows = lows;
    this.checks = checks;
    this.deletedRows = deletedRows;
  }

  /** The positions of a new file's {@code rows} (row {@code i} at position {@code i}, no deletion vector). */
  public static ClosedRowPositions ofRows(List<Version> rows) {
    Builder b = new Builder(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      Version v = rows.get(i);
      b.add(IdentityBytes.of(v.key(), v.validFrom()), i);
    }
    return b.build(0);
  }

  /** A second hash of {@link IdentityBytes}, independent of {@link IdentityFilter#fingerprint} (polynomial, mixed). */
  public static int check(byte[] identity) {
    int h = 0x5bd1e995;
    for (byte b : identity) {
      h = 31 * h + (b & 0xff);
    }
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  /**
   * The row position of the identity with this {@code fingerprint} and {@code check}, {@link #ABSENT}, or
   * {@link #AMBIGUOUS} when more than one row matches.
   */
  public long find(long fingerprint, int check) {
    long hi = fingerprint >>> 32;
    int at = lowerBound(hi << 32);
    long found = ABSENT;
    for (int i = at; i < packed.length && packed[i] >>> 32 == hi; i++) {
      if (lows[i] == (int) fingerprint && checks[i] == check) {
        if (found != ABSENT) {
          return AMBIGUOUS;
        }
        found = packed[i] & 0xFFFFFFFFL;
      }
    }
    return found;
  }

  /** Whether these positions may be used for a file whose deletion vector now deletes {@code deletedRowsNow} rows. */
  public boolean covers(long deletedRowsNow) {
    return deletedRowsNow >= deletedRows;
  }

  /** The Bloom filter of the same identities, which costs a sixth to a twelfth of the memory. */
  public IdentityFilter toFilter() {
    long[] fingerprints = new long[packed.length];
    for (int i = 0; i < packed.length; i++) {
      fingerprints[i] = (packed[i] & 0xFFFFFFFF00000000L) | (lows[i] & 0xFFFFFFFFL);
    }
    return IdentityFilter.of(fingerprints, fingerprints.length, deletedRows);
  }

  /** Rows held. */
  public int size() {
    return packed.length;
  }

  /** Heap bytes of the arrays. */
  public long bytes() {
    return packed.length * 16L;
  }

  private int lowerBound(long v) {
    int lo = 0;
    int hi = packed.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(packed[mid], v) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Collects (identity, position) pairs in any order. */
  public static final class Builder {
    private long[] fingerprints;
    private int[] checks;
    private long[] positions;
    private int size;

    public Builder(int expected) {
      fingerprints = new long[Math.max(16, expected)];
      checks = new int[fingerprints.length];
      positions = new long[fingerprints.length];
    }

    public void add(byte[] identity, long position) {
      if (position < 0 || position > 0xFFFFFFFFL) {
        throw new IllegalArgumentException("row position out of range: " + position);
      }
      if (size == fingerprints.length) {
        fingerprints = Arrays.copyOf(fingerprints, size * 2);
        checks = Arrays.copyOf(checks, size * 2);
        positions = Arrays.copyOf(positions, size * 2);
      }
      fingerprints[size] = IdentityFilter.fingerprint(identity);
      checks[size] = check(identity);
      positions[size] = position;
      size++;
    }

    /** The positions, for a file whose deletion vector deleted {@code deletedRows} rows when they were read. */
    public ClosedRowPositions build(long deletedRows) {
      // sort (high fingerprint bits, index) as one long; the index then brings the low bits and the check along
      long[] order = new long[size];
      for (int i = 0; i < size; i++) {
        order[i] = (fingerprints[i] & 0xFFFFFFFF00000000L) | i;
      }
      sortUnsigned(order);
      long[] packed = new long[size];
      int[] lows = new int[size];
      int[] cs = new int[size];
      for (int j = 0; j < size; j++) {
        int i = (int) (order[j] & 0xFFFFFFFFL);
        packed[j] = (fingerprints[i] & 0xFFFFFFFF00000000L) | positions[i];
        lows[j] = (int) fingerprints[i];
        cs[j] = checks[i];
      }
      return new ClosedRowPositions(packed, lows, cs, deletedRows);
    }

    private static void sortUnsigned(long[] a) {
      // flipping the sign bit turns the unsigned order into the signed one Arrays.sort uses
      for (int i = 0; i < a.length; i++) {
        a[i] ^= Long.MIN_VALUE;
      }
      Arrays.sort(a);
      for (int i = 0; i < a.length; i++) {
        a[i] ^= Long.MIN_VALUE;
      }
    }
  }
}
