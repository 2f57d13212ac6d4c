package io.dimstream.table;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The replayed state of the log at one version: protocol, metadata, live files, tombstones, txn markers. */
final class TableState {
  final long version;
  final long timestampMillis;
  final Protocol protocol;
  final Metadata metadata;
  final Map<String, AddFile> adds;
  final Map<String, RemoveFile> removes;
  final Map<String, SetTransaction> txns;

  private TableState(Builder b, long version, long timestampMillis) {
    this.version = version;
    this.timestampMillis = timestampMillis;
    this.protocol = b.protocol;
    this.metadata = b.metadata;
    this.adds = Collections.unmodifiableMap(new LinkedHashMap<>(b.adds));
    this.removes = Collections.unmodifiableMap(new LinkedHashMap<>(b.removes));
    this.txns = Collections.unmodifiableMap(new LinkedHashMap<>(b.txns));
  }

  Builder toBuilder() {
    Builder b = new Builder();
    b.protocol = protocol;
    b.metadata = metadata;
    b.adds.putAll(adds);
    b.removes.putAll(removes);
    b.txns.putAll(txns);
    return b;
  }

  /** Applies actions in log order: a later add or remove of a path replaces an earlier one. */
  static final class Builder {
    Protocol protocol;
    Metadata metadata;
    final Map<String, AddFile> adds = new LinkedHashMap<>();
    final Map<String, RemoveFile> removes = new LinkedHashMap<>();
    final Map<String, SetTransaction> txns = new LinkedHashMap<>();

    void apply(List<Action> actions) {
      for (Action a : actions) {
        apply(a);
      }
    }

    void apply(Action a) {
      if (a instanceof AddFile add) {
        adds.put(add.path(), add);
        removes.remove(add.path());
      } else if (a instanceof RemoveFile r) {
        adds.remove(r.path());
        removes.put(r.path(), r);
      } else if (a instanceof SetTransaction t) {
        txns.put(t.appId(), t);
      } else if (a instanceof Metadata m) {
        metadata = m;
      } else if (a instanceof Protocol p) {
        protocol = p;
      }
    }

    TableState build(long version, long timestampMillis) {
      return new TableState(this, version, timestampMillis);
    }
  }
}
