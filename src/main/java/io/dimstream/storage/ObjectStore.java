package io.dimstream.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The objects (files) of one table, by key relative to the table root ('/'-separated, e.g.
 * {@code _delta_log/00000000000000000003.json} or {@code is_current=true/part-0001.zstd.parquet}). The table layer
 * does all of its I/O through this interface and never learns which store is behind it: {@link LocalStore} (a
 * directory), {@link S3Store} (a prefix in an S3 bucket).
 *
 * <p>Every method throws {@link java.nio.file.NoSuchFileException} for a key that does not exist where it needs one,
 * and {@link IOException} when the store fails after its own retries. Implementations are thread-safe.
 */
public interface ObjectStore {
  /** Where the table lives. */
  TableLocation location();

  /** The full location of {@code key}, for messages ({@code s3://bucket/prefix/key} or an absolute path). */
  default String describe(String key) {
    return location().describe(key);
  }

  /**
   * The objects whose keys start with {@code prefix} and sort after {@code startAfter} (all of them when
   * {@code startAfter} is null), ascending by key, at any depth. An empty list when there are none.
   */
  List<ObjectInfo> list(String prefix, String startAfter) throws IOException;

  /** The object at {@code key}, or empty when there is none. */
  Optional<ObjectInfo> head(String key) throws IOException;

  /** The whole content of {@code key}. */
  byte[] read(String key) throws IOException;

  /**
   * Opens {@code key} for reads by byte range. {@code knownLength} is its length when the caller knows it (from the
   * log or a listing), else -1; it saves a request.
   */
  RangeReader openRanged(String key, long knownLength) throws IOException;

  /**
   * Creates {@code key} with {@code content} only if no object has that key, atomically: of several writers of the
   * same key exactly one succeeds. Never overwrites. A store that keeps modification times of its own ignores
   * {@code modifiedMillis}; a local directory sets the file's time to it (Delta takes a commit's time from there).
   *
   * @return false when the key already existed (nothing was written)
   * @throws PutOutcomeUnknownException when the write was sent and its outcome cannot be known
   */
  boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException;

  /** Writes {@code content} to {@code key}, replacing what is there; readers see the old or the new whole object. */
  void put(String key, byte[] content) throws IOException;

  /**
   * A local file to write the content of {@code key} into before {@link #putFile} publishes it (a Parquet writer
   * needs a file). A local directory gives a hidden file beside the target, so the publish is a rename; an object
   * store a temporary file.
   */
  Path stagingFile(String key) throws IOException;

  /**
   * Publishes the finished local file {@code staged} (from {@link #stagingFile}) as {@code key}, replacing what is
   * there, and removes {@code staged}. Readers never see part of it.
   */
  void putFile(String key, Path staged) throws IOException;

  /** Deletes {@code key}; nothing happens when it does not exist. */
  void delete(String key) throws IOException;
}
