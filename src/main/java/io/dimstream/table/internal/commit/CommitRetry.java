package io.dimstream.table.internal.commit;

import io.dimstream.table.CommitConflictException;
import io.dimstream.table.TableOptions;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.log.DeltaLog;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs commit attempts until one wins its race: only {@link CommitConflictException} is retried, with exponential
 * backoff and jitter, up to {@link TableOptions#maxCommitAttempts()}; every other error ends at once.
 */
public final class CommitRetry {
  private static final Logger LOG = LoggerFactory.getLogger(CommitRetry.class);

  private final DeltaLog log;
  private final TableOptions options;

  public CommitRetry(DeltaLog log, TableOptions options) {
    this.log = log;
    this.options = options;
  }

  /** Calls {@code attempt} with the attempt number (from 1), re-planning on each call. */
  public <T> T run(IntFunction<T> attempt) {
    for (int i = 1; ; i++) {
      try {
        return attempt.apply(i);
      } catch (CommitConflictException e) {
        if (i >= options.maxCommitAttempts()) {
          throw TableErrors.commitConflict(log.commitFile(e.version()), e.version(), i);
        }
        LOG.info("{}: version {} was taken by another writer; re-planning (attempt {} of {})", log.store, e.version(),
            i + 1, options.maxCommitAttempts());
        backoff(i);
      }
    }
  }

  private void backoff(int attempt) {
    long base = options.retryBackoff().toMillis() << Math.min(attempt - 1, 10);
    try {
      Thread.sleep(base + ThreadLocalRandom.current().nextLong(base + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw TableErrors.interruptedRetry(log.store, e);
    }
  }
}
