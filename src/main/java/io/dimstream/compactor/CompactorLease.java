package io.dimstream.compactor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compactor per table: a lease object {@code <table>/_dimstream/compactor.lease} naming its owner, renewed
 * on every loop. Another owner is refused while the lease is fresh; the same owner (same host and data
 * directory, e.g. after a crash) takes it back at once. Delta readers and vacuum ignore directories starting
 * with {@code _}. The commit protocol stays the last line of defence: a lost race can never corrupt the log.
 */
final class CompactorLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactorLease.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String KEY = "_dimstream/compactor.lease";

  private final ObjectStore store;
  private final String file;
  private final String owner;
  private final Duration ttl;
  private final Clock clock;

  private CompactorLease(ObjectStore store, String owner, Duration ttl, Clock clock) {
    this.store = store;
    this.file = store.describe(KEY);
    this.owner = owner;
    this.ttl = ttl;
    this.clock = clock;
  }

  static Path leaseFile(Path table) {
    return table.resolve("_dimstream").resolve("compactor.lease");
  }

  /** Takes the lease of the local table {@code table} or throws {@link CompactorException} naming the holder. */
  static CompactorLease acquire(Path table, String owner, Duration ttl, Clock clock) {
    return acquire(new LocalStore(table), owner, ttl, clock);
  }

  /** Takes the lease or throws {@link CompactorException} naming the holder. */
  static CompactorLease acquire(ObjectStore table, String owner, Duration ttl, Clock clock) {
    CompactorLease lease = new CompactorLease(table, owner, ttl, clock);
    lease.take();
    return lease;
  }

  private void take() {
    try {
      if (store.putIfAbsent(KEY, content(), clock.millis())) {
        return;
      }
      // someone holds or held it: look closer
      JsonNode held = readHeld();
      if (held == null) {
        held = JSON.createObjectNode(); // released between the two requests: as good as stale
      }
      String holder = held.path("owner").asText();
      Instant heartbeat = Instant.ofEpochMilli(held.path("heartbeat").asLong());
      Duration age = Duration.between(heartbeat, clock.instant());
      if (!holder.equals(owner) && age.compareTo(ttl) < 0) {
        throw CompactorErrors.leaseHeld(file, holder, age, ttl);
      }
      if (!holder.equals(owner)) {
        LOG.warn("Taking over the compactor lease of table {} from {} (last heartbeat {} ago)", store.location(),
            holder, age);
      }
      write(); // not renew(): that refuses a lease naming another owner, which is exactly the stale one here
    } catch (IOException e) {
      throw CompactorErrors.leaseIo(file, e);
    }
  }

  private JsonNode readHeld() throws IOException {
    try {
      return JSON.readTree(store.read(KEY));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      if (e instanceof com.fasterxml.jackson.core.JsonProcessingException) {
        return JSON.createObjectNode(); // a half-written lease counts as stale
      }
      throw e;
    }
  }

  /** Writes a fresh heartbeat; throws when another owner has taken the lease meanwhile. */
  void renew() {
    try {
      JsonNode held = readHeld();
      if (held != null) {
        String holder = held.path("owner").asText(owner);
        if (!holder.isEmpty() && !holder.equals(owner)) {
          throw CompactorErrors.leaseLost(file, holder);
        }
      }
      write();
    } catch (IOException e) {
      throw CompactorErrors.leaseIo(file, e);
    }
  }

  private void write() throws IOException {
    store.put(KEY, content());
  }

  private byte[] content() throws IOException {
    return JSON.writeValueAsString(Map.of("owner", owner, "heartbeat", clock.millis()))
        .getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      JsonNode held = readHeld();
      if (held != null && owner.equals(held.path("owner").asText())) {
        store.delete(KEY);
      }
    } catch (IOException e) {
      LOG.warn("Could not release the compactor lease {}: {}", file, e.toString());
    }
  }
}
