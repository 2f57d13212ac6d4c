package io.dimstream.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** A store that passes every call to another: tests override the calls they watch or hold back. */
public abstract class ForwardingStore implements ObjectStore {
  protected final ObjectStore store;

  protected ForwardingStore(ObjectStore store) {
    this.store = store;
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
    return store.openRanged(key, knownLength);
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
