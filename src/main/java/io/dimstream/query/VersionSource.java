package io.dimstream.query;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.util.stream.Stream;

/**
 * The versions of one dimension as of one table version: what {@link HistoryQueries} reads. Implemented over a
 * Delta table snapshot ({@link DeltaVersionTable}) and, in tests, over a list.
 */
public interface VersionSource {

  /** The dimension the versions belong to; never null. */
  DimensionSpec spec();

  /** The table version this source reads; -1 when it reads no table (in-memory data). */
  long tableVersion();

  /**
   * The versions, in no particular order, read lazily. Rows the hints exclude may be skipped but need not be.
   * The caller must close the stream (try-with-resources): it may hold open files.
   *
   * @throws QueryException with {@link QueryException.Reason#UNAVAILABLE} when the data cannot be read
   */
  Stream<Version> scan(ScanHints hints);

  /**
   * Every stored row with the value of its {@code is_current} column as stored, for {@code table verify}. The
   * default derives the flag from {@code valid_to}, for sources that do not store it separately. Close the stream.
   */
  default Stream<StoredVersion> storedRows() {
    return scan(ScanHints.ALL).map(v -> new StoredVersion(v, v.isCurrent()));
  }

  /** A row as stored: the version and the value of its {@code is_current} column. */
  record StoredVersion(Version version, boolean isCurrentColumn) {}
}
