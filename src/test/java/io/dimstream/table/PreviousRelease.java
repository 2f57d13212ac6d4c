package io.dimstream.table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

/**
 * Tables as earlier releases wrote them: a merge-on-read table whose protocol lists {@code deletionVectors} alone
 * (reader 3 / writer 7), although its non-nullable columns put {@code invariants} in force. Delta Spark refuses such a
 * table with DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH.
 */
public final class PreviousRelease {
  /** The protocol line of version 0 of every merge-on-read table earlier releases created. */
  public static final String PROTOCOL = "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
      + "\"readerFeatures\":[\"deletionVectors\"],\"writerFeatures\":[\"deletionVectors\"]}}";

  private PreviousRelease() {}

  /**
   * Rewrites the protocol of version 0 of the merge-on-read table at {@code table} (no later commit may change the
   * protocol) to the one earlier releases wrote; every other byte of the log stays.
   */
  public static void rewriteProtocol(Path table) {
    Path zero = table.resolve("_delta_log").resolve("00000000000000000000.json");
    try {
      List<String> lines = Files.readAllLines(zero).stream()
          .map(l -> l.startsWith("{\"protocol\"") ? PROTOCOL : l).toList();
      if (!lines.contains(PROTOCOL)) {
        throw new IllegalStateException(zero + " has no protocol line");
      }
      FileTime committed = Files.getLastModifiedTime(zero); // the commit time Delta readers take
      Files.write(zero, lines);
      Files.setLastModifiedTime(zero, committed);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
