package io.dimstream.table.internal.dv;

import java.net.URI;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.TableException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The {@code deletionVector} field of an {@code add} or {@code remove} action: where the set of deleted rows of one
 * data file is stored and how many rows it deletes.
 *
 * @param storageType {@code u} (a DV file in the table directory named by a UUID, with an optional random prefix
 *     directory), {@code i} (inline, Z85-encoded in {@code pathOrInlineDv}) or {@code p} (a DV file at an absolute
 *     path)
 * @param pathOrInlineDv the prefix + Z85 UUID, the inline bytes, or the absolute path, per the storage type
 * @param offset where the DV's block starts in its file (at its size field); null for inline DVs
 * @param sizeInBytes the size of the serialised bitmap (before Z85 encoding when inline)
 * @param cardinality how many rows the DV deletes
 */
public record DeletionVectorDescriptor(String storageType, String pathOrInlineDv, Integer offset, int sizeInBytes,
    long cardinality) {
  public static final String ON_DISK_RELATIVE = "u";
  public static final String INLINE = "i";
  public static final String ON_DISK_ABSOLUTE = "p";
  private static final int UUID_CHARS = 20;

  public DeletionVectorDescriptor {
    if (!ON_DISK_RELATIVE.equals(storageType) && !INLINE.equals(storageType)
        && !ON_DISK_ABSOLUTE.equals(storageType)) {
      throw new IllegalArgumentException("unknown deletion vector storage type '" + storageType
          + "' (the protocol defines u, i and p)");
    }
    if (INLINE.equals(storageType) != (offset == null)) {
      throw new IllegalArgumentException("a deletion vector has an offset exactly when it is stored in a file");
    }
    if (ON_DISK_RELATIVE.equals(storageType) && pathOrInlineDv.length() < UUID_CHARS) {
      throw new IllegalArgumentException("'" + pathOrInlineDv + "' is too short to hold a Z85 UUID");
    }
    if (sizeInBytes < 0 || cardinality < 0) {
      throw new IllegalArgumentException("a deletion vector's size and cardinality are non-negative");
    }
  }

  /** A DV stored in a file of the table directory. */
  public static DeletionVectorDescriptor inFile(UUID uuid, int offset, int sizeInBytes, long cardinality) {
    ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits());
    return new DeletionVectorDescriptor(ON_DISK_RELATIVE, Z85.encode(bytes.array()), offset, sizeInBytes,
        cardinality);
  }

  /** A DV stored in the log itself. */
  public static DeletionVectorDescriptor inline(RoaringBitmapArray rows) {
    byte[] bytes = rows.serialize();
    byte[] padded = new byte[(bytes.length + 3) / 4 * 4];
    System.arraycopy(bytes, 0, padded, 0, bytes.length);
    return new DeletionVectorDescriptor(INLINE, Z85.encode(padded), null, bytes.length, rows.cardinality());
  }

  public boolean isInline() {
    return INLINE.equals(storageType);
  }

  /** Identifies this DV among the DVs of a file: {@code <storageType><pathOrInlineDv>[@<offset>]}. */
  public String uniqueId() {
    return offset == null ? storageType + pathOrInlineDv : storageType + pathOrInlineDv + "@" + offset;
  }

  /** The serialised bitmap of an inline DV. */
  public byte[] inlineBytes() {
    if (!isInline()) {
      throw new IllegalStateException("only an inline deletion vector carries its bytes");
    }
    byte[] padded = Z85.decode(pathOrInlineDv);
    if (sizeInBytes > padded.length) {
      throw new IllegalArgumentException("the inline deletion vector holds " + padded.length + " bytes, not "
          + sizeInBytes);
    }
    byte[] bytes = new byte[sizeInBytes];
    System.arraycopy(padded, 0, bytes, 0, sizeInBytes);
    return bytes;
  }

  /** The file that holds this DV, for the table at {@code tableRoot}. */
  public Path file(Path tableRoot) {
    return tableRoot.resolve(key(new LocalStore(tableRoot)));
  }

  /** The store key of the file that holds this DV. */
  public String key(ObjectStore store) {
    if (ON_DISK_ABSOLUTE.equals(storageType)) {
      String uri = pathOrInlineDv.contains(":") ? pathOrInlineDv : Path.of(pathOrInlineDv).toUri().toString();
      return store.location().keyOf(uri).orElseThrow(() -> new TableException(store.location()
          + ": the log names the deletion vector file " + pathOrInlineDv + ", outside the table; dimstream reads an "
          + "object store table's files only under its own location. Fix: rewrite the table (backfill from its "
          + "rows) so that its files are under " + store.location() + "."));
    }
    if (!ON_DISK_RELATIVE.equals(storageType)) {
      throw new IllegalStateException("an inline deletion vector has no file");
    }
    int split = pathOrInlineDv.length() - UUID_CHARS;
    ByteBuffer uuid = ByteBuffer.wrap(Z85.decode(pathOrInlineDv.substring(split)));
    String name = "deletion_vector_" + new UUID(uuid.getLong(), uuid.getLong()) + ".bin";
    String prefix = pathOrInlineDv.substring(0, split);
    return prefix.isEmpty() ? name : prefix + "/" + name;
  }
}
