package io.dimstream.table.internal.commit;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.TableFeatures;
import io.dimstream.table.internal.log.LogReplay;
import io.dimstream.table.internal.log.TableState;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes a protocol that misses features its table's metadata puts in force (tables of earlier dimstream releases
 * list only {@code deletionVectors} although their non-nullable columns are the {@code invariants} feature, and
 * Delta Spark refuses them): one {@code UPGRADE PROTOCOL} commit with the protocol {@link TableFeatures} decides and
 * nothing else.
 */
public final class ProtocolRepair {
  private static final Logger LOG = LoggerFactory.getLogger(ProtocolRepair.class);

  private final CommitWriter writer;

  public ProtocolRepair(CommitWriter writer) {
    this.writer = writer;
  }

  /**
   * Commits the completed protocol when {@code s}'s lacks a feature in force.
   *
   * @return the features added; empty (nothing written) when the protocol was complete
   * @throws io.dimstream.table.TableException when a missing feature is one dimstream cannot write with
   */
  public List<String> repair(TableState s) {
    List<String> missing = TableFeatures.missing(s.protocol, s.metadata);
    if (missing.isEmpty()) {
      return List.of();
    }
    Protocol next = TableFeatures.protocolFor(s.protocol, s.metadata);
    LogReplay.checkWritable(writer.root(), next);
    long now = writer.timestampAfter(s);
    List<Action> actions = List.of(
        CommitInfo.of(now, "UPGRADE PROTOCOL", Map.of("newProtocol", protocolText(next)), Map.of(), s.version,
            1),
        next);
    writer.write(s.version + 1, actions, now, List.of(), s);
    LOG.info("{}: the table's protocol did not list the Delta table feature(s) {} that its metadata puts in force "
        + "(Delta Spark refuses such a table); added them at table version {}: reader {} / writer {}{}",
        writer.root(), missing, s.version + 1, next.minReaderVersion(), next.minWriterVersion(),
        next.writerFeatures() == null ? "" : " with reader features " + next.readerFeatureList()
            + " and writer features " + next.writerFeatureList());
    return missing;
  }

  /** The protocol as Delta Spark's UPGRADE PROTOCOL commit records it: the action's fields, without the wrapper. */
  private static String protocolText(Protocol p) {
    try {
      return ActionCodec.JSON.readTree(ActionCodec.toJson(p)).get("protocol").toString();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot re-read the protocol action just written", e);
    }
  }
}
