package io.dimstream.storage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease object in a store, naming its owner and a heartbeat: one owner at a time does what the lease guards.
 * Another owner is refused while the heartbeat is younger than the time-to-live; the same owner (same host and data
 * directory, e.g. after a crash) takes it back at once; a lease whose heartbeat is older is taken over. Keep the
 * object under a directory whose name starts with {@code _} beside a Delta table: Delta readers and vacuum ignore it.
 */
public final class StoreLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoreLease.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ObjectStore store;
  private final String key;
  private final String owner;
  private final Clock clock;

  private StoreLease(ObjectStore store, String key, String owner, Clock clock) {
    this.store = store;
    this.key = key;
    this.owner = owner;
    this.clock = clock;
  }

  /**
   * The outcome of {@link #tryAcquire}: the lease, or (lease null) who holds it and how old its heartbeat is.
   */
  public record Attempt(StoreLease lease, String holder, Duration age) {}

  /** Takes the lease {@code key} of {@code store} for {@code owner}, unless another owner holds it fresh. */
  public static Attempt tryAcquire(ObjectStore store, String key, String owner, Duration ttl, Clock clock)
      throws IOException {
    StoreLease lease = new StoreLease(store, key, owner, clock);
    if (store.putIfAbsent(key, lease.content(), clock.millis())) {
      return new Attempt(lease, owner, Duration.ZERO);
    }
    // someone holds or held it: look closer
    JsonNode held = lease.readHeld();
    if (held == null) {
      held = JSON.createObjectNode(); // released between the two requests: as good as stale
    }
    String holder = held.path("owner").asText();
    Duration age = Duration.between(Instant.ofEpochMilli(held.path("heartbeat").asLong()), clock.instant());
    if (!holder.equals(owner) && age.compareTo(ttl) < 0) {
      return new Attempt(null, holder, age);
    }
    if (!holder.equals(owner)) {
      LOG.warn("Taking over the lease {} from {} (last heartbeat {} ago)", store.describe(key), holder, age);
    }
    lease.write(); // not renew(): that refuses a lease naming another owner, which is exactly the stale one here
    return new Attempt(lease, owner, Duration.ZERO);
  }

  /** The lease's full location, for messages. */
  public String describe() {
    return store.describe(key);
  }

  /**
   * Writes a fresh heartbeat, unless another owner has taken the lease meanwhile.
   *
   * @return the other owner that holds the lease now, or empty when this one still does
   */
  public Optional<String> renew() throws IOException {
    JsonNode held = readHeld();
    if (held != null) {
      String holder = held.path("owner").asText(owner);
      if (!holder.isEmpty() && !holder.equals(owner)) {
        return Optional.of(holder);
      }
    }
    write();
    return Optional.empty();
  }

  private JsonNode readHeld() throws IOException {
    try {
      return JSON.readTree(store.read(key));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      if (e instanceof com.fasterxml.jackson.core.JsonProcessingException) {
        return JSON.createObjectNode(); // a half-written lease counts as stale
      }
      throw e;
    }
  }

  private void write() throws IOException {
    store.put(key, content());
  }

  private byte[] content() throws IOException {
    return JSON.writeValueAsString(Map.of("owner", owner, "heartbeat", clock.millis()))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Releases the lease if this owner still holds it; a failure is logged, the lease then expires by itself. */
  @Override
  public void close() {
    try {
      JsonNode held = readHeld();
      if (held != null && owner.equals(held.path("owner").asText())) {
        store.delete(key);
      }
    } catch (IOException e) {
      LOG.warn("Could not release the lease {}: {}", store.describe(key), e.toString());
    }
  }
}
