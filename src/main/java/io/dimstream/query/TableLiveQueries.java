package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.util.List;
import java.util.Optional;

/**
 * {@link LiveQueries} answered from the table's latest version (re-read on each call, so new commits show up):
 * the offline endpoint, and the fallback for times beyond the live stores' horizon. Always answers locally.
 */
public final class TableLiveQueries implements LiveQueries {
  private final VersionTable table;

  public TableLiveQueries(VersionTable table) {
    this.table = table;
  }

  private HistoryQueries latest() {
    return new HistoryQueries(table.at(TimeTravel.LATEST));
  }

  @Override
  public DimensionSpec spec() {
    return table.spec();
  }

  @Override
  public Optional<Version> current(BusinessKey key) {
    return latest().current(key);
  }

  @Override
  public List<Version> history(BusinessKey key) {
    return latest().history(key);
  }

  @Override
  public Optional<Version> asOf(BusinessKey key, long at) {
    return latest().asOf(key, at);
  }
}
