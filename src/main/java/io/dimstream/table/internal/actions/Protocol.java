package io.dimstream.table.internal.actions;

import java.util.List;

/**
 * The {@code protocol} action. Table features (the lists) exist only from reader 3 / writer 7; below that they are
 * null. dimstream writes reader 1 / writer 2 for copy-on-write tables and reader 3 / writer 7 with
 * {@code deletionVectors} for merge-on-read tables.
 */
public record Protocol(int minReaderVersion, int minWriterVersion, List<String> readerFeatures,
    List<String> writerFeatures) implements Action {
  public static final String DELETION_VECTORS = "deletionVectors";
  public static final Protocol DEFAULT = new Protocol(1, 2);
  public static final Protocol WITH_DELETION_VECTORS =
      new Protocol(3, 7, List.of(DELETION_VECTORS), List.of(DELETION_VECTORS));

  public Protocol {
    readerFeatures = readerFeatures == null ? null : List.copyOf(readerFeatures);
    writerFeatures = writerFeatures == null ? null : List.copyOf(writerFeatures);
  }

  public Protocol(int minReaderVersion, int minWriterVersion) {
    this(minReaderVersion, minWriterVersion, null, null);
  }

  /** Whether readers must apply deletion vectors (the feature is listed for readers). */
  public boolean supportsDeletionVectors() {
    return minReaderVersion >= 3 && readerFeatures != null && readerFeatures.contains(DELETION_VECTORS)
        && minWriterVersion >= 7 && writerFeatures != null && writerFeatures.contains(DELETION_VECTORS);
  }
}
