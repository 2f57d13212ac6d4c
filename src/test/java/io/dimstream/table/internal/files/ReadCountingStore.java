package io.dimstream.table.internal.files;

import io.dimstream.storage.ForwardingStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.RangeReader;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/** A store that counts the bytes its readers read by range: what a read costs in I/O. */
final class ReadCountingStore extends ForwardingStore {
  private final AtomicLong rangeBytes = new AtomicLong();

  ReadCountingStore(ObjectStore store) {
    super(store);
  }

  AtomicLong rangeBytes() {
    return rangeBytes;
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
}
