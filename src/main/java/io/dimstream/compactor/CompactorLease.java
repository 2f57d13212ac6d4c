package io.dimstream.compactor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One compactor per table: a lease file {@code <table>/_dimstream/compactor.lease} naming its owner, renewed
 * on every loop. Another owner is refused while the lease is fresh; the same owner (same host and data
 * directory, e.g. after a crash) takes it back at once. Delta readers and vacuum ignore directories starting
 * with {@code _}. The commit protocol stays the last line of defence: a lost race can never corrupt the log.
 */
final class CompactorLease implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactorLease.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final String owner;
  private final Duration ttl;
  private final Clock clock;

  private CompactorLease(Path file, String owner, Duration ttl, Clock clock) {
    this.file = file;
    this.owner = owner;
    this.ttl = ttl;
    this.clock = clock;
  }

  static Path leaseFile(Path table) {
    return table.resolve("_dimstream").resolve("compactor.lease");
  }

  /** Takes the lease or throws {@link CompactorException} naming the holder. */
  static CompactorLease acquire(Path table, String owner, Duration ttl, Clock clock) {
    CompactorLease lease = new CompactorLease(leaseFile(table), owner, ttl, clock);
    lease.take();
    return lease;
  }

  private void take() {
    try {
      Files.createDirectories(file.getParent());
      try {
        Path tmp = file.resolveSibling("lease-" + UUID.randomUUID() + ".tmp");
        Files.writeString(tmp, content());
        try {
          Files.createLink(file, tmp); // atomic put-if-absent
        } finally {
          Files.deleteIfExists(tmp);
        }
        return;
      } catch (FileAlreadyExistsException e) {
        // someone holds or held it: look closer
      }
      JsonNode held = readHeld();
      String holder = held.path("owner").asText();
      Instant heartbeat = Instant.ofEpochMilli(held.path("heartbeat").asLong());
      Duration age = Duration.between(heartbeat, clock.instant());
      if (!holder.equals(owner) && age.compareTo(ttl) < 0) {
        throw CompactorErrors.leaseHeld(file, holder, age, ttl);
      }
      if (!holder.equals(owner)) {
        LOG.warn("Taking over the compactor lease of table {} from {} (last heartbeat {} ago)", file.getParent().getParent(),
            holder, age);
      }
      write(); // not renew(): that refuses a lease naming another owner, which is exactly the stale one here
    } catch (IOException e) {
      throw CompactorErrors.leaseIo(file, e);
    }
  }

  private JsonNode readHeld() throws IOException {
    try {
      return JSON.readTree(Files.readString(file));
    } catch (IOException e) {
      return JSON.createObjectNode(); // a half-written lease counts as stale
    }
  }

  /** Writes a fresh heartbeat; throws when another owner has taken the lease meanwhile. */
  void renew() {
    try {
      if (Files.exists(file)) {
        String holder = readHeld().path("owner").asText(owner);
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
    Path tmp = file.resolveSibling("lease-" + UUID.randomUUID() + ".tmp");
    Files.writeString(tmp, content());
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private String content() throws IOException {
    return JSON.writeValueAsString(Map.of("owner", owner, "heartbeat", clock.millis()));
  }

  @Override
  public void close() {
    try {
      if (Files.exists(file) && owner.equals(readHeld().path("owner").asText())) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      LOG.warn("Could not release the compactor lease {}: {}", file, e.toString());
    }
  }
}
