package io.dimstream.table.internal.commit;

import io.dimstream.model.VersionChange;
import io.dimstream.table.Operation;
import io.dimstream.table.TxnFence;
import java.util.List;
import java.util.Map;

/**
 * Everything one commit of version changes is asked to do, as {@link io.dimstream.table.CommitBuilder} gathered it:
 * planned and written by {@link ChangeCommit}, the same on every attempt.
 *
 * @param changes   the version changes; may be empty (then only the txn markers are committed)
 * @param txns      appId to version, the {@code txn} markers to record
 * @param operation the commitInfo operation
 * @param sources   the versions-topic partition each change came from (which files its new row goes to)
 * @param fence     where the changes were read from: the commit lands only on a table that records less
 */
public record ChangeRequest(List<VersionChange> changes, Map<String, Long> txns, Operation operation,
    SourcePartitions sources, TxnFence fence) {
  public ChangeRequest {
    txns = Map.copyOf(txns);
  }
}
