package io.dimstream.batch;

import java.util.concurrent.ExecutionException;

/** Turns the failures of backfill's worker tasks into what the backfill throws: the task's own error when it can. */
final class BackfillTasks {
  private BackfillTasks() {}

  /** Keeps the thread's interrupt flag and stops the backfill. */
  static IllegalStateException interrupted(InterruptedException e) {
    Thread.currentThread().interrupt();
    return new IllegalStateException("backfill interrupted", e);
  }

  /** The task's runtime error as it was thrown, or any other cause wrapped. */
  static RuntimeException failed(ExecutionException e) {
    return e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
  }
}
