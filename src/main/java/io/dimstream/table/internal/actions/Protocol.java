package io.dimstream.table.internal.actions;

import java.util.List;

/**
 * The {@code protocol} action. Table features (the lists) exist only from reader 3 / writer 7; below that they are
 * null. Which protocol a table needs is {@link TableFeatures}'s to decide: reader 1 / writer 2 for copy-on-write
 * tables, reader 3 / writer 7 with {@code deletionVectors} (and the legacy writer features {@code appendOnly} and
 * {@code invariants}) for merge-on-read tables; a widened column adds {@code typeWidening}.
 *
 * @param readerFeatures the reader features (reader version 3); null when the action has none (older versions)
 * @param writerFeatures the writer features (writer version 7); null when the action has none
 */
public record Protocol(int minReaderVersion, int minWriterVersion, List<String> readerFeatures,
    List<String> writerFeatures) implements Action {
  /** The reader and writer feature of deletion vectors, as the protocol names it. */
  public static final String DELETION_VECTORS = "deletionVectors";
  /** The reader and writer feature of type widening (older files hold a narrower type than the schema's). */
  public static final String TYPE_WIDENING = "typeWidening";
  /** The name Delta 3.2 gave type widening while in preview; readers treat it like {@link #TYPE_WIDENING}. */
  public static final String TYPE_WIDENING_PREVIEW = "typeWidening-preview";
  public static final Protocol DEFAULT = new Protocol(1, 2);

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

  /** The writer features, empty when there are none. */
  public List<String> writerFeatureList() {
    return writerFeatures == null ? List.of() : writerFeatures;
  }

  /** Whether readers must apply deletion vectors and writers may write them (the feature is listed for both). */
  public boolean supportsDeletionVectors() {
    return minReaderVersion >= 3 && readerFeatureList().contains(DELETION_VECTORS)
        && minWriterVersion >= 7 && writerFeatureList().contains(DELETION_VECTORS);
  }
}
