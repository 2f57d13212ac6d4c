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

/** Moves a copy-on-write table (protocol 1 / 2) to deletion vectors (3 / 7) in one commit. */
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
   * @throws io.dimstream.table.TableException when a protocol above 1 / 2 without deletion vectors governs the table
   */
  public boolean upgrade(TableState s) {
    Protocol p = s.protocol;
    boolean enabled = "true".equals(s.metadata.configuration().get(TableProperties.ENABLE_DELETION_VECTORS));
    if (p.supportsDeletionVectors() && enabled) {
      return false;
    }
    if (!p.supportsDeletionVectors() && (p.minReaderVersion() > 1 || p.minWriterVersion() > 2)) {
      throw TableErrors.protocolTooNew(writer.root(), p);
    }
    long now = writer.timestampAfter(s);
    Map<String, String> conf = new LinkedHashMap<>(s.metadata.configuration());
    conf.put(TableProperties.ENABLE_DELETION_VECTORS, "true");
    Metadata md = new Metadata(s.metadata.id(), s.metadata.name(), s.metadata.schemaString(),
        s.metadata.partitionColumns(), conf, s.metadata.createdTime());
    List<Action> actions = new ArrayList<>();
    if (!p.supportsDeletionVectors()) {
      actions.add(UPGRADED);
    }
    actions.add(md);
    actions.add(0, CommitInfo.of(now, "SET TBLPROPERTIES",
        Map.of("properties", "{\"" + TableProperties.ENABLE_DELETION_VECTORS + "\":\"true\"}"), Map.of(),
        s.version, actions.size()));
    writer.write(s.version + 1, actions, now, List.of(), s);
    return true;
  }
}
