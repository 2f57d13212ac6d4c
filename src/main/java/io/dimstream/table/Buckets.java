package io.dimstream.table;

import io.dimstream.history.BusinessKey;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Hash buckets of business keys, and the data file names that carry them. The hash is stable across JVMs. */
final class Buckets {
  private static final Pattern BUCKET_FILE = Pattern.compile("(?:^|/)bucket-(\\d{5})-[^/]*$");

  private Buckets() {}

  static int of(BusinessKey key, int buckets) {
    long h = 0xcbf29ce484222325L;
    for (Object v : key.values()) {
      for (byte b : canonical(v).getBytes(StandardCharsets.UTF_8)) {
        h ^= b & 0xff;
        h *= 0x100000001b3L;
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
      return Long.toString(ChronoUnit.MICROS.between(Instant.EPOCH, i));
    }
    return String.valueOf(v);
  }

  static String currentFile(String partitionDir, int bucket, String codec) {
    return partitionDir + "/" + String.format("bucket-%05d-%s.%s.parquet", bucket, UUID.randomUUID(), codec);
  }

  static String closedFile(String partitionDir, String codec) {
    return partitionDir + "/part-" + UUID.randomUUID() + "." + codec + ".parquet";
  }

  /** The bucket a current-partition file holds, or -1 when its name does not say (written by another engine). */
  static int parse(String path) {
    Matcher m = BUCKET_FILE.matcher(path);
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }
}
