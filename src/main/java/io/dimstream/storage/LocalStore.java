package io.dimstream.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A table in a local directory. Put-if-absent is a hard link of a fully written temporary file to the final name
 * (atomic, fails when the name exists); overwrites and published files are renames, so readers never see half a file.
 */
public final class LocalStore implements ObjectStore {
  private final Path root;
  private final TableLocation location;

  public LocalStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
    this.location = TableLocation.local(this.root);
  }

  /** The table directory. */
  public Path root() {
    return root;
  }

  /** The file of {@code key}. */
  public Path file(String key) {
    return key.isEmpty() ? root : root.resolve(key);
  }

  @Override
  public TableLocation location() {
    return location;
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    int slash = prefix.lastIndexOf('/');
    Path dir = slash < 0 ? root : root.resolve(prefix.substring(0, slash));
    List<ObjectInfo> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        String key = key(file);
        if (attrs.isRegularFile() && key.startsWith(prefix) && (startAfter == null || key.compareTo(startAfter) > 0)) {
          out.add(new ObjectInfo(key, attrs.size(), attrs.lastModifiedTime().toMillis()));
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE; // deleted while listing (vacuum, a temporary file renamed)
        }
        throw e;
      }
    });
    out.sort(Comparator.comparing(ObjectInfo::key));
    return out;
  }

  private String key(Path file) {
    return root.relativize(file).toString().replace('\\', '/');
  }

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    Path f = file(key);
    try {
      BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
      return a.isRegularFile() ? Optional.of(new ObjectInfo(key, a.size(), a.lastModifiedTime().toMillis()))
          : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public byte[] read(String key) throws IOException {
    return Files.readAllBytes(file(key));
  }

  @Override
  public RangeReader openRanged(String key, long knownLength) throws IOException {
    FileChannel ch = FileChannel.open(file(key), StandardOpenOption.READ);
    return new RangeReader() {
      @Override
      public long length() throws IOException {
        return ch.size();
      }

      @Override
      public void readFully(long position, byte[] buf, int off, int len) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(buf, off, len);
        long pos = position;
        while (b.hasRemaining()) {
          int n = ch.read(b, pos);
          if (n < 0) {
            throw new EOFException(file(key) + " ends at " + pos + ", before byte " + (position + len));
          }
          pos += n;
        }
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }

  @Override
  public boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException {
    Path target = file(key);
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      Files.write(tmp, content, StandardOpenOption.CREATE_NEW);
      Files.setLastModifiedTime(tmp, FileTime.fromMillis(modifiedMillis));
      try {
        Files.createLink(target, tmp);
        return true;
      } catch (FileAlreadyExistsException e) {
        return false;
      } catch (UnsupportedOperationException e) {
        return createExclusively(target, content, modifiedMillis);
      } catch (IOException e) {
        throw new PutOutcomeUnknownException("linking " + target + " failed: " + e, e);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** For file systems without hard links: an exclusive create, then the content. */
  private static boolean createExclusively(Path target, byte[] content, long modifiedMillis) throws IOException {
    try {
      Files.write(target, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      Files.setLastModifiedTime(target, FileTime.fromMillis(modifiedMillis));
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      throw new PutOutcomeUnknownException("writing " + target + " failed: " + e, e);
    }
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    Path staged = stagingFile(key);
    try {
      Files.write(staged, content);
      putFile(key, staged);
    } finally {
      Files.deleteIfExists(staged);
    }
  }

  @Override
  public Path stagingFile(String key) throws IOException {
    Path target = file(key);
    Files.createDirectories(target.getParent());
    return target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
  }

  @Override
  public void putFile(String key, Path staged) throws IOException {
    Path target = file(key);
    Files.createDirectories(target.getParent());
    try {
      Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.deleteIfExists(hadoopChecksum(target));
  }

  @Override
  public void delete(String key) throws IOException {
    Path target = file(key);
    Files.deleteIfExists(target);
    Files.deleteIfExists(hadoopChecksum(target));
  }

  /**
   * The checksum file Hadoop's local file system (Spark's, Delta Kernel's default engine's) keeps beside a file it
   * wrote, {@code .<name>.crc}. It checks every read of the file against it, so once the file is replaced (Spark's
   * {@code _last_checkpoint} overwritten by a dimstream checkpoint) or deleted (vacuum) it must go too.
   */
  private static Path hadoopChecksum(Path file) {
    return file.resolveSibling("." + file.getFileName() + ".crc");
  }

  @Override
  public String toString() {
    return root.toString();
  }
}
