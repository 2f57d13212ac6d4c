package io.dimstream.storage;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The new files of one commit, published to the store while the next ones are still being encoded. On an object
 * store each upload is a round trip of tens of milliseconds that the others need not wait for, so they run on a
 * shared pool and {@link #await} waits for all of them before the commit file is written; a local directory
 * publishes with a rename, at once, in the calling thread. Not thread-safe: one planner uses one instance.
 */
public final class Uploads {
  /** Threads shared by every table of the process: uploads wait on the network, not on a core. */
  private static final int THREADS = 8;
  private static final ExecutorService POOL = pool();

  private final ObjectStore store;
  private final boolean parallel;
  private final List<Future<?>> pending = new ArrayList<>();

  private Uploads(ObjectStore store, boolean parallel) {
    this.store = store;
    this.parallel = parallel;
  }

  /** Parallel uploads for an object store, inline publishing for a local directory. */
  public static Uploads of(ObjectStore store) {
    return new Uploads(store, !store.location().isLocal());
  }

  /** Publishes {@code staged} as {@code key} (see {@link ObjectStore#putFile}); the staged file is the upload's now. */
  public void putFile(String key, Path staged) throws IOException {
    if (!parallel) {
      store.putFile(key, staged);
      return;
    }
    pending.add(POOL.submit(() -> {
      try {
        store.putFile(key, staged);
      } finally {
        Files.deleteIfExists(staged);
      }
      return null;
    }));
  }

  /** Writes {@code content} to {@code key} (see {@link ObjectStore#put}). */
  public void put(String key, byte[] content) throws IOException {
    if (!parallel) {
      store.put(key, content);
      return;
    }
    pending.add(POOL.submit(() -> {
      store.put(key, content);
      return null;
    }));
  }

  /**
   * Waits for every upload started so far, also after one failed (so that none lands after its caller deleted what
   * it wrote), then throws the first failure.
   */
  public void await() throws IOException {
    IOException first = null;
    boolean interrupted = false;
    for (Future<?> f : pending) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the upload keeps running: wait for it all the same, then report the interrupt
        } catch (ExecutionException e) {
          if (first == null) {
            first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause().getMessage(), e.getCause());
          }
          break;
        }
      }
    }
    pending.clear();
    if (interrupted) {
      Thread.currentThread().interrupt();
      if (first == null) {
        first = new InterruptedIOException("interrupted while waiting for uploads");
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static ExecutorService pool() {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor p = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        r -> {
          Thread t = new Thread(r, "dimstream-upload-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    p.allowCoreThreadTimeOut(true);
    return p;
  }
}
