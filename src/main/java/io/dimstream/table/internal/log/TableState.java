package io.dimstream.table.internal.log;

import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.actions.SetTransaction;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replayed state of the log at one version: protocol, metadata, live files, tombstones, txn markers. Files are
 * keyed by their identity in log replay, path plus deletion vector id ({@link AddFile#fileId()}), so one data file
 * whose deletion vector changed is one live {@code add} and one tombstone of its former DV.
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
    this.adds = Collections.unmodifiableMap(new LinkedHashMap<>(b.adds));
    this.removes = Collections.unmodifiableMap(new LinkedHashMap<>(b.removes));
    this.txns = Collections.unmodifiableMap(new LinkedHashMap<>(b.txns));
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.protocol = protocol;
    b.metadata = metadata;
    b.adds.putAll(adds);
    b.removes.putAll(removes);
    b.txns.putAll(txns);
    return b;
  }

  /** Applies actions in log order: a later add or remove of a file identity replaces an earlier one. */
  public static final class Builder {
    Protocol protocol;
    Metadata metadata;
    final Map<String, AddFile> adds = new LinkedHashMap<>();
    final Map<String, RemoveFile> removes = new LinkedHashMap<>();
    final Map<String, SetTransaction> txns = new LinkedHashMap<>();

    public void apply(List<Action> actions) {
      for (Action a : actions) {
        apply(a);
      }
    }

    public void apply(Action a) {
      if (a instanceof AddFile add) {
        adds.put(add.fileId(), add);
        removes.remove(add.fileId());
      } else if (a instanceof RemoveFile r) {
        adds.remove(r.fileId());
        removes.put(r.fileId(), r);
      } else if (a instanceof SetTransaction t) {
        txns.put(t.appId(), t);
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
