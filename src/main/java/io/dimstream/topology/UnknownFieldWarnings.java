package io.dimstream.topology;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one warning per field name the spec does not declare ({@code unknown_fields: warn}), however many records and
 * stream threads carry it, so a new source column is noticed once instead of flooding the log. Thread-safe.
 */
public final class UnknownFieldWarnings {
  private static final Logger LOG = LoggerFactory.getLogger(UnknownFieldWarnings.class);
  /** Beyond this many names a source is sending arbitrary keys; stop remembering (and logging) new ones. */
  static final int MAX_NAMES = 1_000;

  private final String dimension;
  private final Path specFile;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  public UnknownFieldWarnings(String dimension, Path specFile) {
    this.dimension = dimension;
    this.specFile = specFile;
  }

  /** Logs the names of {@code fields} not seen before; {@code where} names the record (topic/partition@offset). */
  public void seen(List<String> fields, Supplier<String> where) {
    for (String f : fields) {
      if (seen.size() < MAX_NAMES && seen.add(f)) {
        LOG.warn("Dimension {}: the record at {} has field '{}', which is not a column of the spec{}; it is counted"
            + " in dimstream_unknown_fields_total and not applied. Declare it under 'columns' to keep it, or set"
            + " 'unknown_fields: ignore' (or 'reject') to change this.", dimension, where.get(), f,
            specFile == null ? "" : " " + specFile);
      }
    }
  }
}
