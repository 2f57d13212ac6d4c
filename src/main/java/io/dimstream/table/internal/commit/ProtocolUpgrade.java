package io.dimstream.table.internal.commit;

import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.TableFeatures;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves a copy-on-write table (protocol 1 / 2, or 3 / 7 without the feature) to deletion vectors in one commit, with
 * the protocol {@link TableFeatures} decides for the new metadata (every feature the old protocol supported, explicit
 * or implied by its legacy version, plus {@code deletionVectors}).
 */
public final class ProtocolUpgrade {
  private final CommitWriter writer;

  public ProtocolUpgrade(CommitWriter writer) {
    this.writer = writer;
  }

  /**
   * Writes one commit with the new protocol and {@code delta.enableDeletionVectors=true}; returns false (and writes
   * nothing) when the table already has both.
   *
   * @throws io.dimstream.table.TableException when the resulting protocol would list features dimstream cannot read
   *     or write (the table is governed by another engine's newer protocol)
   */
  public boolean upgrade(TableState s) {
    Protocol p = s.protocol;
    boolean enabled = "true".equals(s.metadata.configuration().get(TableProperties.ENABLE_DELETION_VECTORS));
    if (p.supportsDeletionVectors() && enabled) {
      return false;
    }
    Map<String, String> conf = new LinkedHashMap<>(s.metadata.configuration());
    conf.put(TableProperties.ENABLE_DELETION_VECTORS, "true");
    Metadata md = new Metadata(s.metadata.id(), s.metadata.name(), s.metadata.schemaString(),
        s.metadata.partitionColumns(), conf, s.metadata.createdTime());
    Protocol next = TableFeatures.protocolFor(p, md);
    if (!LogReplay.canWrite(next) || !LogReplay.canRead(next)) {
      throw TableErrors.protocolTooNew(writer.root(), p);
    }
    long now = writer.timestampAfter(s);
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
}
