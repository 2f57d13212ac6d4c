package io.dimstream.table.internal.dv;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.Uploads;
import io.dimstream.storage.RangeReader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Reads and writes deletion vectors. A DV file is a format version byte (1) followed by blocks, each the bitmap's
 * size (int32, big-endian), the bitmap, and the CRC-32 of the bitmap (int32, big-endian); a descriptor's offset
 * points at a block's size field. Small DVs are kept inline in the log instead.
 */
public final class DeletionVectorFiles {
  /** The only DV file format version the protocol defines. */
  static final int FORMAT_VERSION = 1;
  /**
   * DVs up to this many serialised bytes would be stored inline in the log: none is, since Trino's Delta Lake
   * connector refuses to read a table with an inline DV ("Unsupported storage type for deletion vector: i"), as Spark
   * never writes one. A commit's DVs share one file, so that is one small file more per commit at most.
   */
  public static final int DEFAULT_INLINE_LIMIT = 0;

  private DeletionVectorFiles() {}

  /**
   * Reads the rows a descriptor deletes, checking the size, the checksum and the cardinality.
   *
   * @throws DeletionVectorException naming the DV file (or the inline DV) and what is wrong with it
   */
  public static RoaringBitmapArray read(Path tableRoot, DeletionVectorDescriptor dv) {
    return read(new LocalStore(tableRoot), dv);
  }

  /** As {@link #read(Path, DeletionVectorDescriptor)} for a table in {@code store}. */
  public static RoaringBitmapArray read(ObjectStore tableRoot, DeletionVectorDescriptor dv) {
    byte[] bytes = dv.isInline() ? inlineBytes(dv) : cachedBlockBytes(tableRoot, dv);
    RoaringBitmapArray rows;
    try {
      rows = RoaringBitmapArray.deserialize(bytes);
    } catch (IllegalArgumentException e) {
      throw DeletionVectorException.corrupt(where(tableRoot, dv), e.getMessage());
    }
    if (rows.cardinality() != dv.cardinality()) {
      throw DeletionVectorException.corrupt(where(tableRoot, dv), "it deletes " + rows.cardinality()
          + " rows where the log says " + dv.cardinality());
    }
    return rows;
  }

  private static byte[] inlineBytes(DeletionVectorDescriptor dv) {
    try {
      return dv.inlineBytes();
    } catch (IllegalArgumentException e) {
      throw DeletionVectorException.corrupt("the inline deletion vector " + dv.uniqueId(), e.getMessage());
    }
  }

  private static byte[] cachedBlockBytes(ObjectStore store, DeletionVectorDescriptor dv) {
    if (!DeletionVectorCache.applies(store)) {
      return blockBytes(store, dv);
    }
    byte[] bytes = DeletionVectorCache.get(store, dv);
    if (bytes == null) {
      bytes = blockBytes(store, dv);
      DeletionVectorCache.put(store, dv, bytes);
    }
    return bytes;
  }

  private static byte[] blockBytes(ObjectStore store, DeletionVectorDescriptor dv) {
    String file = store.describe(dv.key(store));
    try (RangeReader in = store.openRanged(dv.key(store), -1)) {
      byte[] first = new byte[1];
      try {
        // first, not after asking the length: on an object store this read brings the length with it
        in.readFully(0, first, 0, 1);
      } catch (java.io.EOFException e) {
        throw DeletionVectorException.corrupt(file, "it does not start with format version " + FORMAT_VERSION);
      }
      if ((first[0] & 0xff) != FORMAT_VERSION) {
        throw DeletionVectorException.corrupt(file, "it does not start with format version " + FORMAT_VERSION);
      }
      long end = (long) dv.offset() + 4L + dv.sizeInBytes() + 4L;
      if (dv.offset() < 1 || end > in.length()) {
        throw DeletionVectorException.corrupt(file, "the block at offset " + dv.offset() + " of "
            + dv.sizeInBytes() + " bytes runs past the file's end (" + in.length() + " bytes)");
      }
      byte[] block = new byte[4 + dv.sizeInBytes() + 4];
      in.readFully(dv.offset(), block, 0, block.length);
      ByteBuffer b = ByteBuffer.wrap(block);
      int size = b.getInt();
      if (size != dv.sizeInBytes()) {
        throw DeletionVectorException.corrupt(file, "the block at offset " + dv.offset() + " holds "
            + size + " bytes where the log says " + dv.sizeInBytes());
      }
      byte[] bytes = new byte[size];
      b.get(bytes);
      int stored = b.getInt();
      CRC32 crc = new CRC32();
      crc.update(bytes);
      if ((int) crc.getValue() != stored) {
        throw DeletionVectorException.corrupt(file, "the checksum of the block at offset " + dv.offset()
            + " does not match its bytes");
      }
      return bytes;
    } catch (java.io.FileNotFoundException | java.nio.file.NoSuchFileException e) {
      throw DeletionVectorException.missing(file);
    } catch (IOException e) {
      throw DeletionVectorException.unreadable(file, e);
    }
  }

  /**
   * Stores DVs: those of at most {@code inlineLimit} serialised bytes inline, the others as blocks of one new DV file
   * {@code deletion_vector_<uuid>.bin} in the table directory (written to a temporary name, then moved, so a crash
   * leaves no partial file under the final name). Returns one descriptor per DV, in order.
   */
  public static List<DeletionVectorDescriptor> write(Path tableRoot, List<RoaringBitmapArray> dvs, int inlineLimit) {
    return write(new LocalStore(tableRoot), dvs, inlineLimit);
  }

  /** As {@link #write(Path, List, int)} for a table in {@code tableRoot}. */
  public static List<DeletionVectorDescriptor> write(ObjectStore tableRoot, List<RoaringBitmapArray> dvs,
      int inlineLimit) {
    Uploads uploads = Uploads.of(tableRoot);
    List<DeletionVectorDescriptor> out = write(tableRoot, uploads, dvs, inlineLimit);
    try {
      uploads.await();
    } catch (IOException e) {
      throw DeletionVectorException.unwritable(tableRoot + " (a new deletion vector file)", e);
    }
    return out;
  }

  /**
   * As {@link #write(ObjectStore, List, int)}, writing the DV file through {@code uploads}: on an object store it may
   * still be on its way when this returns, until {@link Uploads#await}.
   */
  public static List<DeletionVectorDescriptor> write(ObjectStore tableRoot, Uploads uploads,
      List<RoaringBitmapArray> dvs, int inlineLimit) {
    List<DeletionVectorDescriptor> out = new ArrayList<>(dvs.size());
    UUID uuid = UUID.randomUUID();
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    file.write(FORMAT_VERSION);
    DataOutputStream data = new DataOutputStream(file);
    try {
      for (RoaringBitmapArray rows : dvs) {
        byte[] bytes = rows.serialize();
        if (bytes.length <= inlineLimit) {
          out.add(DeletionVectorDescriptor.inline(rows));
          continue;
        }
        int offset = file.size();
        CRC32 crc = new CRC32();
        crc.update(bytes);
        data.writeInt(bytes.length);
        data.write(bytes);
        data.writeInt((int) crc.getValue());
        DeletionVectorDescriptor d = DeletionVectorDescriptor.inFile(uuid, offset, bytes.length, rows.cardinality());
        if (DeletionVectorCache.applies(tableRoot)) {
          DeletionVectorCache.put(tableRoot, d, bytes);
        }
        out.add(d);
      }
      data.flush();
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory cannot fail", e);
    }
    if (file.size() > 1) {
      String target = DeletionVectorDescriptor.inFile(uuid, 1, 0, 0).key(tableRoot);
      try {
        uploads.put(target, file.toByteArray());
      } catch (IOException e) {
        throw DeletionVectorException.unwritable(tableRoot.describe(target), e);
      }
    }
    return out;
  }

  private static String where(ObjectStore tableRoot, DeletionVectorDescriptor dv) {
    return dv.isInline() ? "the inline deletion vector " + dv.uniqueId() : tableRoot.describe(dv.key(tableRoot))
        + " (block at offset "
        + dv.offset() + ")";
  }
}
