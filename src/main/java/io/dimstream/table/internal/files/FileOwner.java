package io.dimstream.table.internal.files;

import io.dimstream.table.internal.actions.AddFile;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The versions-topic partition whose keys a data file holds: in the add's {@code tags} under {@link #TAG}, and in the
 * file name's {@code p<partition>-} prefix (which survives checkpoints that do not carry tags).
 */
public final class FileOwner {
  /** The add tag that names the owner partition. */
  public static final String TAG = "dimstream.partition";
  private static final Pattern NAME = Pattern.compile("(?:^|/)p(\\d{1,9})-[^/]*$");

  private FileOwner() {}

  /** The owner of {@code file}, or empty when it has none (older tables, other engines, bulk loads). */
  public static OptionalInt of(AddFile file) {
    String tag = file.tags().get(TAG);
    if (tag != null) {
      try {
        return OptionalInt.of(Integer.parseInt(tag));
      } catch (NumberFormatException e) {
        return OptionalInt.empty(); // another tool's value: treat the file as unowned, never as ours
      }
    }
    Matcher m = NAME.matcher(file.path());
    return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }

  /** A new file name under {@code partitionDir} for rows of {@code partition}. */
  public static String fileName(String partitionDir, int partition, String codec) {
    return partitionDir + "/p" + partition + "-part-" + UUID.randomUUID() + "." + codec + ".parquet";
  }

  /** {@code file} tagged with its owner. */
  public static AddFile tag(AddFile file, int partition) {
    return file.withTags(Map.of(TAG, Integer.toString(partition)));
  }
}
