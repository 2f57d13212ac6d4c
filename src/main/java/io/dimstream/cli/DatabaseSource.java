package io.dimstream.cli;

import io.dimstream.service.DimensionService;
import io.dimstream.source.PostgresCapture;
import io.dimstream.spec.PostgresSource;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/** The database source of {@code run} and {@code demo}: started once the service is up, stopped before it. */
final class DatabaseSource {
  private DatabaseSource() {}

  /** Starts the capture of {@code source} into the running service's changes topic; null without a source. */
  static PostgresCapture start(DimensionService service, Optional<PostgresSource> source) {
    if (source.isEmpty()) {
      return null;
    }
    try {
      return PostgresCapture.start(service.spec(), source.get(), service.kafka());
    } catch (RuntimeException e) {
      service.close();
      throw e;
    }
  }

  /** Blocks until a part of the service, or the capture, fails. */
  static void awaitFailure(DimensionService service, PostgresCapture capture) throws InterruptedException {
    if (capture == null) {
      service.awaitFailure();
      return;
    }
    CountDownLatch failed = new CountDownLatch(1);
    capture.stopped().whenComplete((v, e) -> failed.countDown());
    Thread watch = new Thread(() -> {
      try {
        service.awaitFailure();
      } catch (InterruptedException e) {
        return;
      }
      failed.countDown();
    }, "dimstream-service-watch");
    watch.setDaemon(true);
    watch.start();
    failed.await();
  }

  static void close(PostgresCapture capture) {
    if (capture != null) {
      capture.close();
    }
  }
}
