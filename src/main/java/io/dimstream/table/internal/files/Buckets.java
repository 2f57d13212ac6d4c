package io.dimstream.table.internal.files;

import io.dimstream.model.BusinessKey;
import io.dimstream.types.ColumnValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Hash buckets of business keys, and the data file names that carry them. The hash is stable across JVMs. */
public final class Buckets {
  private static final Pattern BUCKET_FILE = Pattern.compile("(?:^|/)bucket-(\\d{5})-of-(\\d{5})-[^/]*$");

  private Buckets() {}

  public static int of(BusinessKey key, int buckets) {
    long h = 0xcbf29ce484222325L;
    for (Object v : key.values()) {
      if (v instanceof Long || v instanceof Integer) {
        // whole numbers hash by value, so an int and a long key land alike, without formatting them
        h = (h ^ ((Number) v).longValue()) * 0x100000001b3L;
        h ^= h >>> 29;
      } else {
        for (byte b : canonical(v).getBytes(StandardCharsets.UTF_8)) {
          h ^= b & 0xff;
          h *= 0x100000001b3L;
        }
      }
      h ^= 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return (int) Math.floorMod(h, (long) buckets);
  }

  private static String canonical(Object v) {
    if (v instanceof BigDecimal d) {
      return d.stripTrailingZeros().toPlainString();
    }
    if (v instanceof Instant i) {
      return Long.toString(ColumnValues.epochMicros(i));
    }
    return String.valueOf(v);
  }

  /**
   * A new name under {@code partitionDir} for a file that holds rows of one bucket only: a key lookup skips the files
   * named for other buckets. Current files are always written so; a bulk load names its closed files so too.
   */
  public static String bucketFile(String partitionDir, int bucket, int buckets, String codec) {
    return partitionDir + "/"
        + String.format("bucket-%05d-of-%05d-%s.%s.parquet", bucket, buckets, UUID.randomUUID(), codec);
  }

  public static String closedFile(String partitionDir, String codec) {
    return partitionDir + "/part-" + UUID.randomUUID() + "." + codec + ".parquet";
  }

  /**
   * The bucket a file holds under {@code buckets} buckets, or -1 when its name does not say so (written by another
   * engine, by a commit that mixes buckets, or under another bucket count). A current-partition file without one is
   * re-bucketed by the next commit.
   */
  public static int parse(String path, int buckets) {
    Matcher m = BUCKET_FILE.matcher(path);
    if (!m.find() || Integer.parseInt(m.group(2)) != buckets) {
      return -1;
    }
    int b = Integer.parseInt(m.group(1));
    return b < buckets ? b : -1;
  }
}
