package io.dimstream.query;

import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.types.ColumnType;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;

/** Specs, versions and generated histories shared by the query tests. */
public final class QueryFixtures {
  /** customers: key customer_id, sequence updated_at, tracked city and tier, type-1 name, deletes when op = d. */
  public static final DimensionSpec CUSTOMERS = DimensionSpec.builder("customers")
      .column("customer_id", ColumnType.LONG)
      .column("updated_at", ColumnType.TIMESTAMP)
      .column("city", ColumnType.STRING)
      .column("tier", ColumnType.STRING)
      .column("name", ColumnType.STRING)
      .column("op", ColumnType.STRING)
      .key("customer_id")
      .sequence("updated_at")
      .track("city", "tier")
      .delete(new DeleteRule.ColumnEquals("op", "d"))
      .build();

  /** accounts: composite key (region, account_no), long sequence lsn, one tracked attribute. */
  public static final DimensionSpec ACCOUNTS = DimensionSpec.builder("accounts")
      .column("region", ColumnType.STRING)
      .column("account_no", ColumnType.INT)
      .column("lsn", ColumnType.LONG)
      .column("status", ColumnType.STRING)
      .key("region", "account_no")
      .sequence("lsn")
      .build();

  private QueryFixtures() {}

  /** Epoch microseconds of an ISO-8601 instant. */
  public static long micros(String iso) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(iso));
  }

  /** A customers version; {@code to} null = open. */
  public static Version customer(long id, String from, String to, String city, String tier, String name) {
    return new Version(BusinessKey.of(id), Sequence.of(micros(from)), to == null ? null : Sequence.of(micros(to)),
        Arrays.asList(city, tier, name));
  }

  /** A generated customers history: events and their reference fold. */
  public record Generated(List<ChangeEvent> events, List<Version> versions) {}

  public static Generated generate(long seed, int keys, int events) {
    List<ChangeEvent> ev = ChangeStreams.random(CUSTOMERS, seed).keys(keys).events(events)
        .late(0.05).duplicates(0.02).deletes(0.02).generate().events();
    return new Generated(ev, Scd2Fold.fold(CUSTOMERS, ev));
  }
}
