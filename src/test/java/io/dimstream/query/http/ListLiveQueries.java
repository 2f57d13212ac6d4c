package io.dimstream.query.http;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.ListVersionSource;
import io.dimstream.query.LiveQueries;
import io.dimstream.spec.DimensionSpec;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@link LiveQueries} over a fixed history (a list of versions, or a table's), with a routing function for
 * multi-instance tests.
 */
final class ListLiveQueries implements LiveQueries {
  private final HistoryQueries queries;
  private final Function<BusinessKey, Optional<InstanceAddress>> owners;

  ListLiveQueries(DimensionSpec spec, List<Version> versions) {
    this(spec, versions, k -> Optional.empty());
  }

  ListLiveQueries(DimensionSpec spec, List<Version> versions, Function<BusinessKey, Optional<InstanceAddress>> owners) {
    this(new HistoryQueries(new ListVersionSource(spec, versions)), owners);
  }

  /** One instance that owns every key, answering from {@code queries}. */
  ListLiveQueries(HistoryQueries queries) {
    this(queries, k -> Optional.empty());
  }

  private ListLiveQueries(HistoryQueries queries, Function<BusinessKey, Optional<InstanceAddress>> owners) {
    this.queries = queries;
    this.owners = owners;
  }

  @Override
  public DimensionSpec spec() {
    return queries.spec();
  }

  @Override
  public Optional<Version> current(BusinessKey key) {
    return queries.current(key);
  }

  @Override
  public List<Version> history(BusinessKey key) {
    return queries.history(key);
  }

  @Override
  public Optional<Version> asOf(BusinessKey key, long at) {
    return queries.asOf(key, at);
  }

  @Override
  public Optional<InstanceAddress> ownerOf(BusinessKey key) {
    return owners.apply(key);
  }
}
