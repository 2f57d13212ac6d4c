package io.dimstream.compactor;

import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.StoreLease;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * One compactor per table: a {@link StoreLease} {@code <table>/_dimstream/compactor.lease} naming its owner, renewed
 * on every loop. Another owner is refused while the lease is fresh; the same owner (same host and data
 * directory, e.g. after a crash) takes it back at once. The commit protocol stays the last line of defence: a lost
 * race can never corrupt the log.
 */
final class CompactorLease implements AutoCloseable {
  static final String KEY = "_dimstream/compactor.lease";

  private final StoreLease lease;

  private CompactorLease(StoreLease lease) {
    this.lease = lease;
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
    try {
      StoreLease.Attempt a = StoreLease.tryAcquire(table, KEY, owner, ttl, clock);
      if (a.lease() == null) {
        throw CompactorErrors.leaseHeld(table.describe(KEY), a.holder(), a.age(), ttl);
      }
      return new CompactorLease(a.lease());
    } catch (IOException e) {
      throw CompactorErrors.leaseIo(table.describe(KEY), e);
    }
  }

  /** Writes a fresh heartbeat; throws when another owner has taken the lease meanwhile. */
  void renew() {
    try {
      var other = lease.renew();
      if (other.isPresent()) {
        throw CompactorErrors.leaseLost(lease.describe(), other.get());
      }
    } catch (IOException e) {
      throw CompactorErrors.leaseIo(lease.describe(), e);
    }
  }

  @Override
  public void close() {
    lease.close();
  }
}
