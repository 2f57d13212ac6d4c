package io.dimstream.compactor;

import io.dimstream.table.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactorLeaseTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @TempDir
  Path table;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T00:00:00Z"));

  @Test
  void shouldLetTheSameOwnerTakeTheLeaseBackAtOnceAfterACrash() {
    CompactorLease.acquire(table, "host-a:/data", TTL, clock); // never closed: the process died

    try (CompactorLease again = CompactorLease.acquire(table, "host-a:/data", TTL, clock)) {
      again.renew();
    }
    assertThat(CompactorLease.leaseFile(table)).doesNotExist();
  }

  @Test
  void shouldRefuseAnotherOwnerWhileTheLeaseIsFresh() {
    try (CompactorLease held = CompactorLease.acquire(table, "host-a:/data", TTL, clock)) {
      clock.advance(TTL.minusSeconds(1));

      assertThatThrownBy(() -> CompactorLease.acquire(table, "host-b:/data", TTL, clock))
          .isInstanceOf(LeaseHeldException.class)
          .hasMessageContaining("Another compactor (host-a:/data) is writing the table")
          .hasMessageContaining("renewed 29 s ago")
          .hasMessageContaining("Stop the other service");
      held.renew(); // the holder is unaffected by the refused attempt
    }
  }

  @Test
  void shouldCountFromTheLastRenewal() {
    try (CompactorLease held = CompactorLease.acquire(table, "host-a:/data", TTL, clock)) {
      clock.advance(Duration.ofSeconds(25));
      held.renew();
      clock.advance(Duration.ofSeconds(25));

      assertThatThrownBy(() -> CompactorLease.acquire(table, "host-b:/data", TTL, clock))
          .isInstanceOf(LeaseHeldException.class);
    }
  }

  @Test
  void shouldLetAnotherOwnerTakeOverAStaleLeaseAndStopTheOldHolderOnItsNextRenewal() {
    CompactorLease old = CompactorLease.acquire(table, "host-a:/data", TTL, clock);
    clock.advance(TTL.plusSeconds(1));

    try (CompactorLease taken = CompactorLease.acquire(table, "host-b:/data", TTL, clock)) {
      assertThatThrownBy(old::renew)
          .isInstanceOf(CompactorException.class)
          .isNotInstanceOf(LeaseHeldException.class)
          .hasMessageContaining("was taken over by host-b:/data");
      old.close(); // must not release a lease it no longer holds
      assertThat(CompactorLease.leaseFile(table)).exists();
      taken.renew();
    }
    assertThat(CompactorLease.leaseFile(table)).doesNotExist();
  }

  @Test
  void shouldTreatAnUnreadableLeaseAsStale() throws Exception {
    Files.createDirectories(CompactorLease.leaseFile(table).getParent());
    Files.writeString(CompactorLease.leaseFile(table), "{\"owner\": \"host-a");

    try (CompactorLease lease = CompactorLease.acquire(table, "host-b:/data", TTL, clock)) {
      assertThat(Files.readString(CompactorLease.leaseFile(table))).contains("host-b:/data");
    }
  }

  @Test
  void shouldLeaveNoTemporaryFilesBehind() throws Exception {
    try (CompactorLease lease = CompactorLease.acquire(table, "host-a:/data", TTL, clock)) {
      lease.renew();
      lease.renew();
    }
    try (var files = Files.list(CompactorLease.leaseFile(table).getParent())) {
      assertThat(files).isEmpty();
    }
  }
}
