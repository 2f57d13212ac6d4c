package io.dimstream.cli;

import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.spec.DimensionSpec;
import java.util.Map;

/**
 * A running dimension service for code outside {@code io.dimstream.cli} (benchmarks): starts the same wiring as
 * {@code dimstream run} in this JVM and exposes what a measurement needs.
 */
public final class ServiceHandle implements AutoCloseable {
  private final DimensionService service;

  private ServiceHandle(DimensionService service) {
    this.service = service;
  }

  /** Starts topics, topology and compactor against {@code bootstrapServers} (null: an embedded broker). */
  public static ServiceHandle start(DimensionSpec spec, String bootstrapServers) {
    return new ServiceHandle(DimensionService.start(spec, bootstrapServers));
  }

  /** Client properties of the Kafka the service uses. */
  public Map<String, Object> kafka() {
    return service.kafka();
  }

  /** Whether the topology has committed offsets at the end of its source topics. */
  public boolean streamsCaughtUp() {
    return CatchUp.streamsCaughtUp(service.kafka(), service.spec(), "dimstream-" + service.spec().name());
  }

  /** Table commits the compactor made since start. */
  public long compactorCommits() {
    return service.compactor().commits();
  }

  /** The compactor's error, or null while it runs. */
  public Throwable compactorFailure() {
    return service.compactor().failure();
  }

  /** The topology's late-events-spliced counter. */
  public long lateEventsSpliced() {
    return service.metrics().lateEventsSpliced();
  }

  @Override
  public void close() {
    service.close();
  }
}
