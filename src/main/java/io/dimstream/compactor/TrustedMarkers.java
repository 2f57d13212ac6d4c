package io.dimstream.compactor;

import io.dimstream.table.Snapshot;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The table's offsets this compactor trusts: its topic incarnation's markers, and legacy ones it adopted at start. */
final class TrustedMarkers {
  private static final Logger LOG = LoggerFactory.getLogger(TrustedMarkers.class);
  private final VersionsTopicIdentity identity;
  private final Map<Integer, Long> adopted;

  private TrustedMarkers(VersionsTopicIdentity identity, Map<Integer, Long> adopted) {
    this.identity = identity;
    this.adopted = Map.copyOf(adopted);
  }

  /**
   * Decided once, on the table as the compactor starts: legacy markers count only on a table no compactor of this
   * release has committed to yet, so once one has, the topic-id markers alone say where each partition resumes.
   *
   * @param endOffsets partition to log end offset of the versions topic now
   */
  static TrustedMarkers atStart(VersionsTopicIdentity identity, Snapshot table, Map<Integer, Long> endOffsets) {
    VersionsTopicIdentity.Markers m = identity.markers(table.txnVersions());
    LOG.info("Compactor of {} trusts the table's offsets of versions topic {} incarnation {} only",
        identity.dimension(), identity.topic(), identity.topicId());
    if (!m.others().isEmpty()) {
      LOG.info("The table of {} also holds offsets of other incarnations of {} (topic ids {}): the topic was deleted "
          + "and created again since, so they are ignored", identity.dimension(), identity.topic(), m.others());
    }
    Map<Integer, Long> adopted = m.adoptable(endOffsets);
    if (m.legacyOnly()) {
      m.legacy().forEach((p, recorded) -> {
        long end = endOffsets.getOrDefault(p, 0L);
        if (adopted.containsKey(p)) {
          LOG.info("Adopting the table's offset {} of {}-{}, recorded before offsets named the topic id: the "
              + "partition's end offset {} is past it, so it can be this topic's", recorded, identity.topic(), p, end);
        } else {
          LOG.info("Reading {}-{} from its beginning: the table records offset {} of it from before offsets named the "
              + "topic id, but the partition ends at offset {}, so that offset was of an earlier topic of that name",
              identity.topic(), p, recorded, end);
        }
      });
    } else if (!m.legacy().isEmpty()) {
      LOG.debug("Offsets of {} recorded before offsets named the topic id are ignored: {}", identity.topic(),
          m.legacy());
    }
    return new TrustedMarkers(identity, adopted);
  }

  VersionsTopicIdentity identity() {
    return identity;
  }

  /** The last offset of {@code partition} that {@code table} records as applied, -1 for none: read it from the next. */
  long recorded(Snapshot table, int partition) {
    long own = table.txnVersion(identity.appId(partition));
    return own >= 0 ? own : adopted.getOrDefault(partition, -1L);
  }
}
