package io.dimstream.compactor;

import io.dimstream.table.DeltaTable;
import io.dimstream.table.EventArchive;
import io.dimstream.table.Snapshot;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the small files of the event archive beside the table ({@link EventArchive#mergeSmall}) between two
 * commits, at most once a {@link #EVERY}: one file per commit would otherwise pile up for as long as the service runs,
 * and a takeover reads every one.
 */
final class ArchiveMerge {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveMerge.class);
  /** How often the archive is listed to see whether a merge is due (a LIST of the archive's prefix). */
  static final Duration EVERY = Duration.ofMinutes(1);
  private final DeltaTable table;
  private final Clock clock;
  private long lastMillis;

  ArchiveMerge(DeltaTable table, Clock clock) {
    this.table = table;
    this.clock = clock;
    this.lastMillis = clock.millis();
  }

  /** Merges when due; a failure is logged and tried again later (the archive replays alike either way). */
  void runIfDue() {
    if (clock.millis() - lastMillis < EVERY.toMillis()) {
      return;
    }
    lastMillis = clock.millis();
    long started = System.nanoTime();
    try {
      Snapshot s = table.latest();
      EventArchive.Merged m = EventArchive.mergeSmall(table.store(), s::txnVersion);
      if (m.files() > 0) {
        LOG.info("{}: merged {} event archive files into one ({} entries kept, {} superseded or read twice) ({} ms)",
            table.store(), m.files(), m.kept(), m.dropped(), (System.nanoTime() - started) / 1_000_000);
      }
    } catch (java.io.IOException | RuntimeException e) {
      LOG.warn("{}: merging the event archive's small files failed, tried again in {} s: {}", table.store(),
          EVERY.toSeconds(), e.toString());
    }
  }
}
