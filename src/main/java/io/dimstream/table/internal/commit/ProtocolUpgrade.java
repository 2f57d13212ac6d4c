package io.dimstream.table.internal.commit;

import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Moves a copy-on-write table (protocol 1 / 2, or 3 / 7 without the feature) to deletion vectors in one commit. */
public final class ProtocolUpgrade {
  /** What a 1 / 2 table moved to 3 / 7 must list: the legacy writer features version 2 implied, plus DVs. */
  static final Protocol UPGRADED = new Protocol(3, 7, List.of(Protocol.DELETION_VECTORS),
      List.of("appendOnly", "invariants", Protocol.DELETION_VECTORS));

  private final CommitWriter writer;

  public ProtocolUpgrade(CommitWriter writer) {
    this.writer = writer;
  }

  /**
   * Writes one commit with the new protocol and {@code delta.enableDeletionVectors=true}; returns false (and writes
   * nothing) when the table already has both.
   *
   * @throws io.dimstream.table.TableException when a protocol other than 1 / 2 or 3 / 7 governs the table, or a
   *     3 / 7 one lists writer features dimstream does not honour
   */
  public boolean upgrade(TableState s) {
    Protocol p = s.protocol;
    boolean enabled = "true".equals(s.metadata.configuration().get(TableProperties.ENABLE_DELETION_VECTORS));
    if (p.supportsDeletionVectors() && enabled) {
      return false;
    }
    Protocol next = p.supportsDeletionVectors() ? p : withDeletionVectors(p);
    if (next == null) {
      throw TableErrors.protocolTooNew(writer.root(), p);
    }
    long now = writer.timestampAfter(s);
    Map<String, String> conf = new LinkedHashMap<>(s.metadata.configuration());
    conf.put(TableProperties.ENABLE_DELETION_VECTORS, "true");
    Metadata md = new Metadata(s.metadata.id(), s.metadata.name(), s.metadata.schemaString(),
        s.metadata.partitionColumns(), conf, s.metadata.createdTime());
    List<Action> actions = new ArrayList<>();
    if (!next.equals(p)) {
      actions.add(next);
    }
    actions.add(md);
    actions.add(0, CommitInfo.of(now, "SET TBLPROPERTIES",
        Map.of("properties", "{\"" + TableProperties.ENABLE_DELETION_VECTORS + "\":\"true\"}"), Map.of(),
        s.version, actions.size()));
    writer.write(s.version + 1, actions, now, List.of(), s);
    return true;
  }

  /**
   * {@code p} with deletion vectors: {@link #UPGRADED} from 1 / 2; a 3 / 7 protocol (a copy-on-write table that
   * widened a column) keeps its features and gains this one; null for any other protocol.
   */
  private static Protocol withDeletionVectors(Protocol p) {
    if (p.minReaderVersion() == 1 && p.minWriterVersion() <= 2) {
      return UPGRADED;
    }
    if (p.minReaderVersion() != 3 || p.minWriterVersion() != 7) {
      return null;
    }
    List<String> reader = new ArrayList<>(p.readerFeatureList());
    List<String> writerFeatures = new ArrayList<>(p.writerFeatureList());
    if (!reader.contains(Protocol.DELETION_VECTORS)) {
      reader.add(Protocol.DELETION_VECTORS);
    }
    if (!writerFeatures.contains(Protocol.DELETION_VECTORS)) {
      writerFeatures.add(Protocol.DELETION_VECTORS);
    }
    return new Protocol(3, 7, reader, writerFeatures);
  }
}
