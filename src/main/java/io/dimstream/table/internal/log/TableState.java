package io.dimstream.table.internal.log;

import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.actions.SetTransaction;
import java.util.List;
import java.util.Map;

/**
 * The replayed state of the log at one version: protocol, metadata, live files, tombstones, txn markers. Files are
 * keyed by their identity in log replay, path plus deletion vector id ({@link AddFile#fileId()}), so one data file
 * whose deletion vector changed is one live {@code add} and one tombstone of its former DV. The maps are persistent
 * ({@link FileMap}): a state built from another shares all it did not change, so the state of each commit costs what
 * the commit changed, and the states of older versions (time travel, open snapshots) stay as they were.
 */
public final class TableState {
  public final long version;
  public final long timestampMillis;
  public final Protocol protocol;
  public final Metadata metadata;
  public final Map<String, AddFile> adds;
  /** Tombstones by {@link RemoveFile#fileId()} (path, plus the DV's id when it had one). */
  public final Map<String, RemoveFile> removes;
  public final Map<String, SetTransaction> txns;

  private TableState(Builder b, long version, long timestampMillis) {
    this.version = version;
    this.timestampMillis = timestampMillis;
    this.protocol = b.protocol;
    this.metadata = b.metadata;
    this.adds = b.adds;
    this.removes = b.removes;
    this.txns = b.txns;
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.protocol = protocol;
    b.metadata = metadata;
    b.adds = (FileMap<AddFile>) adds;
    b.removes = (FileMap<RemoveFile>) removes;
    b.txns = (FileMap<SetTransaction>) txns;
    return b;
  }

  /** Applies actions in log order: a later add or remove of a file identity replaces an earlier one. */
  public static final class Builder {
    Protocol protocol;
    Metadata metadata;
    FileMap<AddFile> adds = FileMap.empty();
    FileMap<RemoveFile> removes = FileMap.empty();
    FileMap<SetTransaction> txns = FileMap.empty();

    public void apply(List<Action> actions) {
      for (Action a : actions) {
        apply(a);
      }
    }

    public void apply(Action a) {
      if (a instanceof AddFile add) {
        adds = adds.with(add.fileId(), add);
        removes = removes.without(add.fileId());
      } else if (a instanceof RemoveFile r) {
        adds = adds.without(r.fileId());
        removes = removes.with(r.fileId(), r);
      } else if (a instanceof SetTransaction t) {
        txns = txns.with(t.appId(), t);
      } else if (a instanceof Metadata m) {
        metadata = m;
      } else if (a instanceof Protocol p) {
        protocol = p;
      }
    }

    public TableState build(long version, long timestampMillis) {
      return new TableState(this, version, timestampMillis);
    }
  }
}
