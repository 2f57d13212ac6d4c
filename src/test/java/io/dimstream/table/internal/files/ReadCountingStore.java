package io.dimstream.table.internal.files;

import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.RangeReader;
import io.dimstream.storage.TableLocation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A store that counts the bytes its readers read by range: what a read costs in I/O. */
record ReadCountingStore(ObjectStore store, AtomicLong rangeBytes) implements ObjectStore {
  ReadCountingStore(ObjectStore store) {
    this(store, new AtomicLong());
  }

  @Override
  public TableLocation location() {
    return store.location();
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    return store.list(prefix, startAfter);
  }

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    return store.head(key);
  }

  @Override
  public byte[] read(String key) throws IOException {
    return store.read(key);
  }

  @Override
  public RangeReader openRanged(String key, long knownLength) throws IOException {
    RangeReader reader = store.openRanged(key, knownLength);
    return new RangeReader() {
      @Override
      public long length() throws IOException {
        return reader.length();
      }

      @Override
      public void readFully(long position, byte[] buf, int off, int len) throws IOException {
        rangeBytes.addAndGet(len);
        reader.readFully(position, buf, off, len);
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    };
  }

  @Override
  public boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException {
    return store.putIfAbsent(key, content, modifiedMillis);
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    store.put(key, content);
  }

  @Override
  public Path stagingFile(String key) throws IOException {
    return store.stagingFile(key);
  }

  @Override
  public void putFile(String key, Path staged) throws IOException {
    store.putFile(key, staged);
  }

  @Override
  public void delete(String key) throws IOException {
    store.delete(key);
  }
}
