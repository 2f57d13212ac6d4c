package io.dimstream.table.internal.actions;

import java.util.List;

/**
 * The {@code protocol} action. dimstream creates reader 1 / writer 2 tables (no table features); tables at reader 3
 * / writer 7 list their features by name.
 *
 * @param readerFeatures the reader features (reader version 3); null when the action has none (older versions)
 * @param writerFeatures the writer features (writer version 7); null when the action has none
 */
public record Protocol(int minReaderVersion, int minWriterVersion, List<String> readerFeatures,
    List<String> writerFeatures) implements Action {
  public static final Protocol DEFAULT = new Protocol(1, 2);
  /** The reader feature of deletion vectors, as the protocol names it. */
  public static final String DELETION_VECTORS = "deletionVectors";

  public Protocol {
    readerFeatures = readerFeatures == null ? null : List.copyOf(readerFeatures);
    writerFeatures = writerFeatures == null ? null : List.copyOf(writerFeatures);
  }

  /** A protocol without table features. */
  public Protocol(int minReaderVersion, int minWriterVersion) {
    this(minReaderVersion, minWriterVersion, null, null);
  }

  /** The reader features, empty when there are none. */
  public List<String> readerFeatureList() {
    return readerFeatures == null ? List.of() : readerFeatures;
  }
}
