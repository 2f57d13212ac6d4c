package io.dimstream.service;

import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.LeaseHeldException;
import io.dimstream.compactor.VersionRecordDecoder;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SizePolicy;
import io.dimstream.table.DeltaTable;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the compactor on its own thread. While another instance holds the table's lease this one stands by and
 * retries every {@link #STANDBY_RETRY}, so a second instance of the service takes over when the first stops; any
 * other compactor error ends the loop and is reported to {@code onFailure}.
 */
final class CompactorRunner {
  private static final Logger LOG = LoggerFactory.getLogger(CompactorRunner.class);
  static final Duration STANDBY_RETRY = Duration.ofSeconds(5);

  private final DimensionSpec spec;
  private final DeltaTable table;
  private final VersionRecordDecoder decoder;
  private final Map<String, Object> kafka;
  private final String owner;
  private final Clock clock;
  private final SizePolicy sizes;
  private final Runnable onFailure;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private volatile Compactor current;
  private Thread thread;

  CompactorRunner(DimensionSpec spec, DeltaTable table, VersionRecordDecoder decoder, Map<String, Object> kafka,
      String owner, Clock clock, SizePolicy sizes, Runnable onFailure) {
    this.spec = spec;
    this.table = table;
    this.decoder = decoder;
    this.kafka = Map.copyOf(kafka);
    this.owner = owner;
    this.clock = clock;
    this.sizes = sizes;
    this.onFailure = onFailure;
  }

  /** Starts the loop on a daemon thread named {@code compactor-<dimension>}. */
  void start() {
    thread = new Thread(this::loop, "compactor-" + spec.name());
    thread.setDaemon(true);
    thread.start();
  }

  /** The compactor of the current attempt; null before the first one starts. */
  Compactor current() {
    return current;
  }

  private void loop() {
    boolean toldStandby = false;
    while (stopping.getCount() > 0) {
      Compactor c = new Compactor(spec, table, decoder, kafka, owner, clock, sizes);
      current = c;
      try {
        c.run();
        return;
      } catch (LeaseHeldException e) {
        if (!toldStandby) {
          LOG.warn("Compactor standing by: {}", e.getMessage());
          toldStandby = true;
        }
        if (awaitStop(STANDBY_RETRY)) {
          return;
        }
      } catch (RuntimeException e) {
        onFailure.run(); // the compactor logged it and keeps it as failure() for /health
        return;
      }
    }
  }

  /** Stops standing by, then stops the running compactor (it commits what it read) within {@code timeout}. */
  void stop(Duration timeout) {
    stopping.countDown();
    Compactor c = current;
    if (c != null) {
      c.stop(timeout);
    }
  }

  private boolean awaitStop(Duration d) {
    try {
      return stopping.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
