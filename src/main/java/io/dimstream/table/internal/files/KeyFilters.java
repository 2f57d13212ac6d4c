package io.dimstream.table.internal.files;

import io.dimstream.model.BusinessKey;
import io.dimstream.types.Column;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.api.Binary;

/**
 * Key lookups in data files: the Parquet bloom filters written on the key columns, and the row-group filter of one
 * key that Parquet's reader applies with them and with the row groups' key statistics. A bloom filter is what lets a
 * lookup skip a file whose key range spans the table (a commit's files hold keys from all over it).
 */
final class KeyFilters {
  /** False positives of a bloom filter of a large file: 1 %, about 10 bits per distinct key (Parquet's default). */
  static final double FPP = 0.01;
  /**
   * The fewest distinct keys a bloom filter is sized for (2 KiB): a commit's small files each hold a few keys from
   * all over the table and a lookup tests the filters of all of them, so each must rarely say "maybe" for a key it
   * does not hold (the current and closed file of one commit hold the same keys: their false positives coincide).
   */
  static final long MIN_NDV = 1024;

  private KeyFilters() {}

  /** The file stores a key column with another type than the filter's: it is read without one. */
  static final class NotApplicable extends RuntimeException {
    NotApplicable(Throwable cause) {
      super(cause);
    }
  }

  /**
   * Bloom filters on the key columns of a file of {@code rows} rows (an upper bound of its distinct keys), for the
   * key kinds {@link #of} filters on. Those columns are written without a dictionary: Parquet writes no bloom filter
   * for a column chunk that is all dictionary-encoded (a key repeated in several versions, or one value of a
   * composite key's column, would be), and deciding from a dictionary costs a read of its page.
   */
  static <B extends ParquetWriter.Builder<?, B>> void bloomFilters(B builder, TableLayout layout, long rows) {
    for (Column c : layout.keyColumns) {
      if (filterable(c)) {
        builder.withDictionaryEncoding(c.name(), false)
            .withBloomFilterEnabled(c.name(), true)
            .withBloomFilterNDV(c.name(), Math.max(MIN_NDV, rows))
            .withBloomFilterFPP(c.name(), FPP);
      }
    }
    builder.withMaxBloomFilterBytes(ParquetProperties.DEFAULT_MAX_BLOOM_FILTER_BYTES);
  }

  private static boolean filterable(Column c) {
    return switch (c.type().kind()) {
      case LONG, INT, STRING -> true;
      default -> false;
    };
  }

  /** The row-group filter of rows whose key is {@code key} on the key columns it can test; null when none. */
  static FilterCompat.Filter of(TableLayout layout, BusinessKey key) {
    BusinessKey k = layout.normalizeKey(key);
    FilterPredicate all = null;
    for (int i = 0; i < layout.keyColumns.size(); i++) {
      Column c = layout.keyColumns.get(i);
      Object v = k.values().get(i);
      FilterPredicate p = switch (c.type().kind()) {
        case LONG -> v instanceof Long l ? FilterApi.eq(FilterApi.longColumn(c.name()), l) : null;
        case INT -> v instanceof Integer n ? FilterApi.eq(FilterApi.intColumn(c.name()), n) : null;
        case STRING -> v instanceof String s ? FilterApi.eq(FilterApi.binaryColumn(c.name()), Binary.fromString(s))
            : null;
        default -> null;
      };
      if (p != null) {
        all = all == null ? p : FilterApi.and(all, p);
      }
    }
    return all == null ? null : FilterCompat.get(all);
  }
}
