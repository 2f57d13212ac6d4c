package io.dimstream.table.internal.maintenance;

import io.dimstream.table.TableException;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.log.Checkpoints;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.table.internal.log.TableState;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when to write a checkpoint (every {@code delta.checkpointInterval} versions) and which tombstones it keeps;
 * writes it in the committing thread, or on one background thread that always writes the newest state due.
 */
public final class Checkpointer {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

  private final DeltaLog log;
  /** Null: checkpoints are written by the commit that makes them due. */
  private final ThreadPoolExecutor background;
  /** The newest state due and not yet written; states due while one is written are skipped for the newest. */
  private final AtomicReference<TableState> pending = new AtomicReference<>();

  public Checkpointer(DeltaLog log, boolean inBackground) {
    this.log = log;
    // no thread while idle, and a daemon: a checkpoint cut short by the process ending only costs readers time
    this.background = !inBackground ? null : new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "dimstream-checkpoint");
          t.setDaemon(true);
          return t;
        });
  }

  /** Writes the checkpoint of {@code state} now, keeping tombstones younger than the retention at {@code nowMillis}. */
  public void write(TableState state, long nowMillis) {
    Map<String, String> conf = state.metadata.configuration();
    Checkpoints.write(log, state, nowMillis - TableProperties.tombstoneRetention(conf).toMillis());
  }

  /** After a commit: a checkpoint when the version is a multiple of the interval; a failure only costs readers time. */
  public void writeIfDue(TableState state) {
    if (state.version % TableProperties.checkpointInterval(state.metadata.configuration()) != 0) {
      return;
    }
    if (background == null) {
      writeLogged(state);
    } else if (pending.getAndSet(state) == null) {
      background.execute(() -> {
        TableState newest = pending.getAndSet(null);
        try {
          if (newest != null) {
            writeLogged(newest);
          }
        } catch (RuntimeException e) {
          // nobody waits on this thread: say it here, or it is lost
          LOG.warn("{}: checkpoint at version {} failed; readers replay the commits instead", log.store,
              newest.version, e);
        }
      });
    }
  }

  private void writeLogged(TableState state) {
    try {
      write(state, state.timestampMillis);
    } catch (TableException e) {
      LOG.warn("{}: checkpoint at version {} failed; readers replay the commits instead: {}", log.store,
          state.version, e.getMessage());
    }
  }
}
