package io.dimstream.table.internal;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/** The table properties dimstream reads from {@code metaData.configuration}, with their defaults. */
public final class TableProperties {
  /** Hash buckets of the current-version partition; fixed when the table is created. */
  public static final String BUCKETS = "dimstream.buckets";
  public static final int DEFAULT_BUCKETS = 64;
  /** Parquet codec of the closed-version files (written once, kept long): zstd (default) or snappy. */
  public static final String CODEC = "dimstream.codec";
  /** Parquet codec of the current-partition bucket files (rewritten by most commits): snappy (default) or zstd. */
  public static final String CURRENT_CODEC = "dimstream.currentCodec";
  /** Rows per closed-version file written by a commit or by optimize. */
  public static final String TARGET_FILE_ROWS = "dimstream.targetFileRows";
  public static final long DEFAULT_TARGET_FILE_ROWS = 100_000;
  public static final String CHECKPOINT_INTERVAL = "delta.checkpointInterval";
  public static final int DEFAULT_CHECKPOINT_INTERVAL = 10;
  public static final String TOMBSTONE_RETENTION = "delta.deletedFileRetentionDuration";
  public static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(7);

  /**
   * Merge-on-read with deletion vectors ({@code true}, the default of new tables: protocol reader 3 / writer 7) or
   * copy-on-write of hash buckets ({@code false}: protocol 1 / 2, for readers that cannot apply deletion vectors).
   */
  public static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";
  /** Set by the commit that first widens a column (Delta's switch for the {@code typeWidening} feature). */
  /** {@code true}: every commit that changes rows also writes the change data feed ({@code _change_data/}). */
  public static final String ENABLE_CHANGE_DATA_FEED = "delta.enableChangeDataFeed";
  public static final String ENABLE_TYPE_WIDENING = "delta.enableTypeWidening";
  /** A file whose deleted rows reach this fraction of its rows is rewritten by compaction. */
  public static final String COMPACTION_DELETED_FRACTION = "dimstream.compaction.deletedFraction";
  public static final double DEFAULT_COMPACTION_DELETED_FRACTION = 0.3;
  /** A file with fewer live rows than this is merged with others by compaction (current partition). */
  public static final String COMPACTION_SMALL_FILE_ROWS = "dimstream.compaction.smallFileRows";
  public static final long DEFAULT_COMPACTION_SMALL_FILE_ROWS = 20_000;
  /** Rows the background compaction rewrites at most per cycle (bounded work between commits). */
  public static final String COMPACTION_ROWS_PER_CYCLE = "dimstream.compaction.rowsPerCycle";
  public static final long DEFAULT_COMPACTION_ROWS_PER_CYCLE = 500_000;

  private static final Pattern INTERVAL =
      Pattern.compile("\\s*interval\\s+(\\d+)\\s+(second|minute|hour|day|week)s?\\s*", Pattern.CASE_INSENSITIVE);

  private TableProperties() {}

  public static int buckets(Map<String, String> conf) {
    long n = positive(conf, BUCKETS, DEFAULT_BUCKETS);
    if (n > 100_000) {
      throw TableErrors.badProperty(BUCKETS, conf.get(BUCKETS), "a whole number from 1 to 100000");
    }
    return (int) n;
  }

  public static CompressionCodecName codec(Map<String, String> conf) {
    return codec(CODEC, conf.getOrDefault(CODEC, "zstd"));
  }

  public static CompressionCodecName currentCodec(Map<String, String> conf) {
    return codec(CURRENT_CODEC, conf.getOrDefault(CURRENT_CODEC, "snappy"));
  }

  private static CompressionCodecName codec(String property, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "zstd" -> CompressionCodecName.ZSTD;
      case "snappy" -> CompressionCodecName.SNAPPY;
      case "none", "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
      default -> throw TableErrors.badProperty(property, v, "zstd, snappy or none");
    };
  }

  public static long targetFileRows(Map<String, String> conf) {
    return positive(conf, TARGET_FILE_ROWS, DEFAULT_TARGET_FILE_ROWS);
  }

  /** Whether the property asks for deletion vectors; absent means yes for a new table. */
  public static boolean deletionVectorsEnabled(Map<String, String> conf) {
    String v = conf.getOrDefault(ENABLE_DELETION_VECTORS, "true").trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw TableErrors.badProperty(ENABLE_DELETION_VECTORS, v, "true or false");
    };
  }

  /** Whether commits write the change data feed; absent means no. */
  public static boolean changeDataFeed(Map<String, String> conf) {
    String v = conf.getOrDefault(ENABLE_CHANGE_DATA_FEED, "false").trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "true" -> true;
      case "false" -> false;
      default -> throw TableErrors.badProperty(ENABLE_CHANGE_DATA_FEED, v, "true or false");
    };
  }

  public static double compactionDeletedFraction(Map<String, String> conf) {
    String v = conf.get(COMPACTION_DELETED_FRACTION);
    if (v == null) {
      return DEFAULT_COMPACTION_DELETED_FRACTION;
    }
    try {
      double d = Double.parseDouble(v.trim());
      if (d > 0 && d <= 1) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw TableErrors.badProperty(COMPACTION_DELETED_FRACTION, v, "a fraction above 0 and at most 1, e.g. 0.3");
  }

  public static long compactionSmallFileRows(Map<String, String> conf) {
    return positive(conf, COMPACTION_SMALL_FILE_ROWS, DEFAULT_COMPACTION_SMALL_FILE_ROWS);
  }

  public static long compactionRowsPerCycle(Map<String, String> conf) {
    return positive(conf, COMPACTION_ROWS_PER_CYCLE, DEFAULT_COMPACTION_ROWS_PER_CYCLE);
  }

  public static int checkpointInterval(Map<String, String> conf) {
    return (int) Math.min(Integer.MAX_VALUE, positive(conf, CHECKPOINT_INTERVAL, DEFAULT_CHECKPOINT_INTERVAL));
  }

  public static Duration tombstoneRetention(Map<String, String> conf) {
    String v = conf.get(TOMBSTONE_RETENTION);
    if (v == null) {
      return DEFAULT_TOMBSTONE_RETENTION;
    }
    Matcher m = INTERVAL.matcher(v);
    if (!m.matches()) {
      throw TableErrors.badProperty(TOMBSTONE_RETENTION, v, "'interval <n> <second|minute|hour|day|week>'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "second" -> Duration.ofSeconds(n);
      case "minute" -> Duration.ofMinutes(n);
      case "hour" -> Duration.ofHours(n);
      case "day" -> Duration.ofDays(n);
      default -> Duration.ofDays(7 * n);
    };
  }

  private static long positive(Map<String, String> conf, String key, long dflt) {
    String v = conf.get(key);
    if (v == null) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw TableErrors.badProperty(key, v, "a positive whole number");
  }
}
