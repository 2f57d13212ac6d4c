package io.dimstream.table.internal.maintenance;

import io.dimstream.table.TableException;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.log.Checkpoints;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.table.internal.log.TableState;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Decides when to write a checkpoint (every {@code delta.checkpointInterval} versions) and which tombstones it keeps. */
public final class Checkpointer {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

  private final DeltaLog log;

  public Checkpointer(DeltaLog log) {
    this.log = log;
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
    try {
      write(state, state.timestampMillis);
    } catch (TableException e) {
      LOG.warn("{}: checkpoint at version {} failed; readers replay the commits instead: {}", log.root,
          state.version, e.getMessage());
    }
  }
}
