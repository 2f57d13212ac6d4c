package io.dimstream.table;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.SetTransaction;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.TableState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The table as of one version: immutable, safe to share between threads. Reading rows opens data files lazily,
 * one at a time, so memory stays bounded by one Parquet row group whatever the table's size.
 *
 * <p>Every {@code Stream} returned here holds an open file: close it (try-with-resources). A data file that is
 * missing or unreadable raises a {@link TableException} naming it; rows are never silently skipped.
 */
public final class Snapshot {
  private final DeltaTable table;
  final TableState state;
  final TableLayout layout;

  Snapshot(DeltaTable table, TableState state, TableLayout layout) {
    this.table = table;
    this.state = state;
    this.layout = layout;
  }

  /** The table version (0 = creation). */
  public long version() {
    return state.version;
  }

  /** The commit time of this version: the commit file's modification time, as Delta time travel uses. */
  public Instant timestamp() {
    return Instant.ofEpochMilli(state.timestampMillis);
  }

  /** The dimension spec stored in the table at this version (key, sequence, attribute columns, output names). */
  public DimensionSpec spec() {
    return layout.spec;
  }

  /** The table properties ({@code metaData.configuration}). */
  public Map<String, String> properties() {
    return state.metadata.configuration();
  }

  /** The last {@code txn} version recorded for {@code appId}, or -1 when the application never committed. */
  public long txnVersion(String appId) {
    SetTransaction t = state.txns.get(appId);
    return t == null ? -1 : t.version();
  }

  /** Every recorded {@code txn}: appId to version. */
  public Map<String, Long> txnVersions() {
    Map<String, Long> out = new LinkedHashMap<>();
    state.txns.forEach((k, v) -> out.put(k, v.version()));
    return Collections.unmodifiableMap(out);
  }

  /** Number of live data files. */
  public int fileCount() {
    return state.adds.size();
  }

  /**
   * Number of version rows, from the files' statistics less the rows their deletion vectors delete (exact for files
   * dimstream wrote); -1 when a file has no statistics.
   */
  public long rowCount() {
    return rowCount(state.adds.values());
  }

  /** As {@link #rowCount()}, of the closed versions alone (the files {@link #closed} reads). */
  public long closedRowCount() {
    return rowCount(state.adds.values().stream().filter(a -> !isCurrentFile(a)).toList());
  }

  private long rowCount(java.util.Collection<AddFile> files) {
    long n = 0;
    for (AddFile a : files) {
      long r = table.stats(a, layout).numRecords;
      if (r < 0) {
        return -1;
      }
      n += r - a.deletedRows();
    }
    return n;
  }

  /** Every version row, current and closed, in no particular order. Close the stream. */
  public Stream<Version> scan() {
    return stream(new ArrayList<>(state.adds.values()), v -> true);
  }

  /** The open versions only (one per live key), read from the current partition alone. Close the stream. */
  public Stream<Version> current() {
    List<AddFile> files = state.adds.values().stream().filter(this::isCurrentFile).toList();
    return stream(files, Version::isCurrent);
  }

  /** The closed versions only, read from the files outside the current partition. Close the stream. */
  public Stream<Version> closed() {
    List<AddFile> files = state.adds.values().stream().filter(a -> !isCurrentFile(a)).toList();
    return stream(files, v -> !v.isCurrent());
  }

  /**
   * The versions valid at {@code t}, compared with the first sequence part only:
   * {@code valid_from <= t < valid_to}, open versions included. Timestamps are epoch microseconds, dates epoch
   * days. Files whose statistics prove no row valid at {@code t} are not read. Close the stream.
   */
  public Stream<Version> asOf(long t) {
    List<AddFile> files = state.adds.values().stream()
        .filter(a -> table.stats(a, layout).mayBeValidAt(t, false)).toList();
    return stream(files, v -> v.validAt(t));
  }

  /** The versions valid at {@code t} compared on the full sequence: {@code validFrom <= t < validTo}. Close the stream. */
  public Stream<Version> asOf(Sequence t) {
    boolean composite = t.size() > 1;
    List<AddFile> files = state.adds.values().stream()
        .filter(a -> table.stats(a, layout).mayBeValidAt(t.first(), composite)).toList();
    return stream(files, v -> v.validAt(t));
  }

  /** Every version of one key, oldest first; empty when the key never existed. Reads only files that may hold it. */
  public List<Version> history(BusinessKey key) {
    BusinessKey k = layout.normalizeKey(key);
    int buckets = TableProperties.buckets(properties());
    int bucket = Buckets.of(k, buckets);
    List<AddFile> files = new ArrayList<>();
    for (AddFile a : state.adds.values()) {
      // a file named for another bucket cannot hold the key: its footer and bloom filters are not even read
      int b = Buckets.parse(a.path(), buckets);
      if (b >= 0 && b != bucket) {
        continue;
      }
      if (table.stats(a, layout).mayContainKey(k)) {
        files.add(a);
      }
    }
    List<Version> out;
    try (Stream<Version> s = stream(files, v -> v.key().equals(k), k)) {
      out = new ArrayList<>(s.toList());
    }
    out.sort((a, b) -> a.validFrom().compareTo(b.validFrom()));
    return out;
  }

  boolean isCurrentFile(AddFile a) {
    return layout.isCurrentFile(a);
  }

  private Stream<Version> stream(List<AddFile> files, Predicate<Version> filter) {
    return stream(files, filter, null);
  }

  /** {@code key}: when not null, only row groups that may hold it are read (the others' rows are not wanted). */
  private Stream<Version> stream(List<AddFile> files, Predicate<Version> filter, BusinessKey key) {
    FileChain chain = new FileChain(files, filter, key);
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(chain, Spliterator.ORDERED | Spliterator.NONNULL),
        false).onClose(chain::close);
  }

  /** Iterates the rows of several files, one open file at a time. */
  private final class FileChain implements Iterator<Version> {
    private final Iterator<AddFile> files;
    private final Predicate<Version> filter;
    private final BusinessKey key;
    private DataFiles.RowIterator current;
    private Version next;

    FileChain(List<AddFile> files, Predicate<Version> filter, BusinessKey key) {
      this.files = files.iterator();
      this.filter = filter;
      this.key = key;
    }

    @Override
    public boolean hasNext() {
      while (next == null) {
        if (current != null && current.hasNext()) {
          Version v = current.next();
          if (filter.test(v)) {
            next = v;
          }
        } else {
          close();
          if (!files.hasNext()) {
            return false;
          }
          AddFile f = files.next();
          current = key == null ? DataFiles.read(table.store(), f, layout, state.version)
              : DataFiles.readKey(table.store(), f, layout, state.version, key);
        }
      }
      return true;
    }

    @Override
    public Version next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Version v = next;
      next = null;
      return v;
    }

    void close() {
      if (current != null) {
        DataFiles.RowIterator c = current;
        current = null;
        c.close();
      }
    }
  }
}
