package io.dimstream.table.internal.files;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * The tails of data files on object stores that this process read: every byte after the last row group's data, which
 * a Parquet writer fills with the page indexes, the bloom filters and the footer. A data file never changes once
 * written, so a cached tail is never stale; with it, opening a file again costs no request, and a key lookup reads
 * the row-group statistics and bloom filters there and sends a GET only for a row group that may hold the key.
 *
 * <p>Least recently used tails go first past {@link #MAX_BYTES} in all. A small file's tail (footer, a bloom filter
 * of its key column, page indexes) is 3 to 6 KiB, a file of 100k rows about 130 KiB (its bloom filter is 128 KiB of
 * it), a 10M-key table's bucket file of 156k rows about 260 KiB; so the bound holds the tails of a 10M-key table of
 * a few hundred files, or of about 10,000 small files.
 */
public final class DataFileTails {
  /** The memory the cached tails take at most. */
  static final long MAX_BYTES = 64L << 20;
  /** How much of a file's end a first open reads: what the S3 store's read-ahead brings anyway. */
  static final int FETCH = 1 << 20;

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final Map<String, Tail> TAILS = new LinkedHashMap<>(256, 0.75f, true);
  private static long bytes;

  private DataFileTails() {}

  /**
   * The bytes {@code [start, start + bytes.length)} of a file, and where its row groups' data lie: {@code groups}
   * holds the first and the end byte of each row group, in turn.
   */
  record Tail(long start, byte[] bytes, long[] groups) {
    boolean covers(long position, int len) {
      return position >= start && position + len <= start + bytes.length;
    }

    /** The index of the row group whose data hold bytes {@code [position, position + len)}; -1 if none does. */
    int groupOf(long position, int len) {
      for (int g = 0; g < groups.length / 2; g++) {
        if (position >= groups[2 * g] && position + len <= groups[2 * g + 1]) {
          return g;
        }
      }
      return -1;
    }
  }

  static synchronized Tail get(String file) {
    return TAILS.get(file);
  }

  static synchronized void put(String file, Tail tail) {
    if (tail.bytes.length > MAX_BYTES / 16) {
      return;
    }
    Tail old = TAILS.put(file, tail);
    bytes += tail.bytes.length - (old == null ? 0 : old.bytes.length);
    Iterator<Tail> eldest = TAILS.values().iterator();
    while (bytes > MAX_BYTES && eldest.hasNext()) {
      bytes -= eldest.next().bytes.length;
      eldest.remove();
    }
  }

  /** Forgets every tail, as a new process starts (for measurements). */
  public static synchronized void clear() {
    TAILS.clear();
    bytes = 0;
  }

  /** The bytes the cache holds now. */
  public static synchronized long size() {
    return bytes;
  }

  /**
   * The tail of a Parquet file of {@code length} bytes, cut from {@code last}, its last bytes (the whole of the
   * footer, at least); null when they do not end in a Parquet footer (an encrypted one included) or do not hold it.
   * Only the part of the tail that {@code last} holds is kept: a read of the rest goes to the store.
   */
  static Tail cut(byte[] last, long length) {
    int n = last.length;
    if (n < 12 || !ByteBuffer.wrap(last, n - 4, 4).equals(ByteBuffer.wrap(MAGIC))) {
      return null;
    }
    long footerLength = ByteBuffer.wrap(last, n - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xffffffffL;
    long footerAt = n - 8 - footerLength;
    if (footerAt < 0) {
      return null;
    }
    ParquetMetadata footer;
    try {
      footer = new ParquetMetadataConverter().readParquetMetadata(
          new ByteArrayInputStream(last, (int) footerAt, (int) footerLength), ParquetMetadataConverter.NO_FILTER);
    } catch (IOException | RuntimeException e) {
      return null; // not a footer this reader can parse: the Parquet reader will say what is wrong with the file
    }
    long dataEnd = MAGIC.length;
    long[] groups = new long[2 * footer.getBlocks().size()];
    int g = 0;
    for (BlockMetaData rowGroup : footer.getBlocks()) {
      long first = Long.MAX_VALUE;
      long end = 0;
      for (ColumnChunkMetaData column : rowGroup.getColumns()) {
        first = Math.min(first, column.getStartingPos());
        end = Math.max(end, column.getStartingPos() + column.getTotalSize());
      }
      groups[g++] = first;
      groups[g++] = end;
      dataEnd = Math.max(dataEnd, end);
    }
    long lastStart = length - n;
    long start = Math.max(dataEnd, lastStart);
    if (start >= length) {
      return null;
    }
    byte[] tail = new byte[(int) (length - start)];
    System.arraycopy(last, (int) (start - lastStart), tail, 0, tail.length);
    return new Tail(start, tail, groups);
  }
}
