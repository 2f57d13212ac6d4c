package io.dimstream.table.internal.files;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.Uploads;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.dv.DeletionVectorFiles;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/** Writes versions to Parquet data files ({@link VersionWriteSupport}, no Hadoop) and reads them back (parquet-avro). */
public final class DataFiles {
  /**
   * Rows per page, against Parquet's 20,000: a key lookup decodes the pages the page indexes pick, and every row of
   * them is assembled before the key filter drops it. At 2,000 a lookup in a bucket of 10M keys takes a fifth less
   * CPU, and the files grow about 2% from the page headers and index entries.
   */
  static final int PAGE_ROWS = 2_000;

  private DataFiles() {}

  /**
   * The store key of an {@code add}/{@code remove} path: a relative, URI-encoded path is decoded; an absolute URI
   * must point into the table (a local table also takes a file URI elsewhere on its file system).
   *
   * @throws io.dimstream.table.TableException when an absolute URI points outside an object store table
   */
  public static String key(ObjectStore store, String path) {
    return store.location().keyOf(path).orElseThrow(() -> TableErrors.fileOutsideTable(store.location(), path));
  }

  /** The local file of an {@code add}/{@code remove} path of a table in the local directory {@code root}. */
  public static Path resolve(Path root, String path) {
    String key = key(new LocalStore(root), path);
    return root.resolve(key);
  }

  /** Writes {@code rows} (already in identity order) to {@code root/relPath} and returns its {@code add} action. */
  public static AddFile write(ObjectStore store, String relPath, Iterable<Version> rows, TableLayout layout,
      boolean current, CompressionCodecName codec) {
    Uploads uploads = Uploads.of(store);
    AddFile a = write(store, uploads, relPath, rows, layout, current, codec);
    try {
      uploads.await();
    } catch (IOException e) {
      throw TableErrors.io("write data file", store.describe(relPath), e);
    }
    return a;
  }

  /**
   * As {@link #write(ObjectStore, String, Iterable, TableLayout, boolean, CompressionCodecName)}, publishing the file
   * through {@code uploads}: on an object store it may still be on its way when this returns, until
   * {@link Uploads#await}.
   */
  public static AddFile write(ObjectStore store, Uploads uploads, String relPath, Iterable<Version> rows,
      TableLayout layout, boolean current, CompressionCodecName codec) {
    StatsCollector stats = new StatsCollector(layout.dataColumns);
    Path staged = null;
    try {
      staged = store.stagingFile(relPath);
      VersionWriteSupport.Builder builder = new VersionWriteSupport.Builder(new LocalOutputFile(staged), layout, stats);
      if (rows instanceof Collection<?> c && !c.isEmpty()) {
        KeyFilters.bloomFilters(builder, layout, c.size());
      }
      try (ParquetWriter<Version> w = builder
          .withConf(new PlainParquetConfiguration())
          .withCodecFactory(PlainCodecFactory.INSTANCE)
          .withCompressionCodec(codec)
          .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
          .withPageRowCountLimit(PAGE_ROWS)
          .build()) {
        for (Version v : rows) {
          w.write(v);
        }
      }
      long size = Files.size(staged);
      long modified = Files.getLastModifiedTime(staged).toMillis();
      Path publishing = staged;
      staged = null; // the upload owns it now, and removes it
      uploads.putFile(relPath, publishing);
      return new AddFile(relPath, layout.partitionValues(current), size, modified, true, stats.toJson());
    } catch (IOException e) {
      throw TableErrors.io("write data file", store.describe(relPath), e);
    } finally {
      if (staged != null) {
        try {
          Files.deleteIfExists(staged);
        } catch (IOException ignored) {
          // a staged file left behind is a hidden temporary file: readers and vacuum skip it
        }
      }
    }
  }

  /**
   * Writes a change data file to {@code root/relPath} through {@code uploads}: row {@code i} is {@code rows.get(i)}
   * with {@code changeTypes.get(i)} in the {@code _change_type} column; returns the file's size in bytes.
   */
  public static long writeChangeData(ObjectStore store, Uploads uploads, String relPath, List<Version> rows,
      List<String> changeTypes, TableLayout layout, CompressionCodecName codec) {
    Path staged = null;
    try {
      staged = store.stagingFile(relPath);
      try (ParquetWriter<ChangeDataWriteSupport.Row> w = new ChangeDataWriteSupport.Builder(
              new LocalOutputFile(staged), layout)
          .withConf(new PlainParquetConfiguration())
          .withCodecFactory(PlainCodecFactory.INSTANCE)
          .withCompressionCodec(codec)
          .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
          .build()) {
        for (int i = 0; i < rows.size(); i++) {
          w.write(new ChangeDataWriteSupport.Row(rows.get(i), changeTypes.get(i)));
        }
      }
      long size = Files.size(staged);
      Path publishing = staged;
      staged = null; // the upload owns it now, and removes it
      uploads.putFile(relPath, publishing);
      return size;
    } catch (IOException e) {
      throw TableErrors.io("write change data file", store.describe(relPath), e);
    } finally {
      if (staged != null) {
        try {
          Files.deleteIfExists(staged);
        } catch (IOException ignored) {
          // a staged file left behind is a hidden temporary file: readers and vacuum skip it
        }
      }
    }
  }

  /** As {@link #write(ObjectStore, String, Iterable, TableLayout, boolean, CompressionCodecName)} in a local table. */
  public static AddFile write(Path root, String relPath, Iterable<Version> rows, TableLayout layout, boolean current,
      CompressionCodecName codec) {
    return write(new LocalStore(root), relPath, rows, layout, current, codec);
  }

  /**
   * An iterator over the live versions of the data file an {@code add} names: the rows its deletion vector deletes
   * are skipped. Close it when done. Errors name the data file or the deletion vector.
   */
  public static RowIterator read(ObjectStore store, AddFile file, TableLayout layout, long tableVersion) {
    return new RowIterator(input(store, file), layout, tableVersion, () -> deleted(store, file), false, null);
  }

  /**
   * As {@link #read(ObjectStore, AddFile, TableLayout, long)}, returning the rows of {@code key}, and rows of other
   * keys only where the key's type cannot be filtered on (a date column in the key, a file that stores a key column
   * with another type): callers check the key. Row groups whose statistics or bloom filters prove that they hold no
   * row of the key are not read; on an object store with the file's tail cached, a file none of whose row groups
   * may hold the key costs no request, and its deletion vector is read only when a row group is.
   */
  public static RowIterator readKey(ObjectStore store, AddFile file, TableLayout layout, long tableVersion,
      BusinessKey key) {
    return readFiltered(store, file, layout, tableVersion, KeyFilters.of(layout, key));
  }

  /**
   * Calls {@code out} with the version at each of {@code positions} of the data file an {@code add} names, in
   * ascending position order, decoding only the pages that hold them (see {@link PositionReads}). The deletion vector
   * is not applied: the positions must be of live rows.
   *
   * @throws io.dimstream.table.TableException when the file is missing or unreadable, or has no row at a position
   */
  public static void readPositions(ObjectStore store, AddFile file, TableLayout layout, long tableVersion,
      RoaringBitmapArray positions, ObjLongConsumer<Version> out) {
    PositionReads.read(input(store, file).wholeRowGroups(), layout, tableVersion, positions, out);
  }

  /** The rows {@code filter} admits (every row when it is null, or when the file's key column cannot take it). */
  private static RowIterator readFiltered(ObjectStore store, AddFile file, TableLayout layout, long tableVersion,
      FilterCompat.Filter filter) {
    StoreInputFile input = input(store, file).wholeRowGroups();
    Supplier<RoaringBitmapArray> deleted = () -> deleted(store, file);
    if (filter == null) {
      return new RowIterator(input, layout, tableVersion, deleted, false, null);
    }
    try {
      return new RowIterator(input, layout, tableVersion, deleted, false, filter);
    } catch (KeyFilters.NotApplicable e) {
      // the file stores a key column with another type than the spec's (written before a type change, or by
      // another engine): read it whole
      return new RowIterator(input, layout, tableVersion, deleted, false, null);
    }
  }

  /** As {@link #read(ObjectStore, AddFile, TableLayout, long)} in a local table. */
  public static RowIterator read(Path root, AddFile file, TableLayout layout, long tableVersion) {
    return read(new LocalStore(root), file, layout, tableVersion);
  }

  private static StoreInputFile input(ObjectStore store, AddFile file) {
    return new StoreInputFile(store, key(store, file.path()), file.size() > 0 ? file.size() : -1);
  }

  /**
   * Reads only the key and valid_from columns of the live rows of the data file an {@code add} names (its deletion
   * vector applied): the versions returned carry null attributes and no valid_to; {@link RowIterator#position()}
   * gives each one's row position.
   */
  public static RowIterator readIdentities(ObjectStore store, AddFile file, TableLayout layout, long tableVersion) {
    return new RowIterator(input(store, file), layout, tableVersion, () -> deleted(store, file), true, null);
  }

  private static RoaringBitmapArray deleted(ObjectStore store, AddFile file) {
    return file.deletionVector() == null ? null : DeletionVectorFiles.read(store, file.deletionVector());
  }

  /** Versions of one data file, read lazily. */
  public static final class RowIterator implements Iterator<Version>, AutoCloseable {
    private final StoreInputFile file;
    private final long tableVersion;
    private final ParquetReader<GenericRecord> reader;
    private Function<GenericRecord, Version> decoder;
    private GenericRecord next;
    private final TableLayout layout;
    /** Reads the deletion vector when the first row is read: a file whose row groups are all skipped never needs it. */
    private final Supplier<RoaringBitmapArray> deletionVector;
    private boolean deletionVectorRead;
    /** Positions of deleted rows; null when the file has no deletion vector. */
    private RoaringBitmapArray deleted;
    /** The highest position the deletion vector deletes; -1 without one. */
    private long lastDeleted = -1;
    /** Whether row groups may be skipped: positions come from the reader, and the file's end is not the rows' end. */
    private final boolean filtered;
    /** Position of {@code next} in the file (the number of rows read once the file is exhausted). */
    private long nextPosition = -1;
    /** Position of the row {@link #next()} returned last. */
    private long position = -1;

    RowIterator(StoreInputFile file, TableLayout layout, long tableVersion, Supplier<RoaringBitmapArray> deleted,
        boolean identitiesOnly, FilterCompat.Filter filter) {
      this.file = file;
      this.tableVersion = tableVersion;
      this.layout = layout;
      this.deletionVector = deleted;
      this.filtered = filter != null;
      PlainParquetConfiguration conf = new PlainParquetConfiguration();
      conf.set(Int96.READ_AS_FIXED, "true");
      try {
        // the columns are cut from each file's own schema: files other engines rewrote (Spark's OPTIMIZE, UPDATE,
        // DELETE) hold them with other physical types than the files dimstream writes
        ParquetReader.Builder<GenericRecord> builder = ColumnProjection.reader(file, conf, identitiesOnly
                ? layout.identityColumns() : layout.dataColumns.stream().map(c -> c.name()).collect(Collectors.toSet()))
            .withCodecFactory(PlainCodecFactory.INSTANCE);
        if (filter != null) {
          // Row groups are skipped from the statistics and bloom filters in the tail, and no dictionary page is
          // fetched to decide. The page indexes then pick the pages to decode: the rows are sorted by key, so one
          // key's rows lie in a page or two of each column (on an object store the row group still comes in one
          // request, see StoreInputFile). The rows of other keys in those pages are not assembled into records.
          builder.withFilter(filter).useStatsFilter(true).useBloomFilter(true).useDictionaryFilter(false)
              .useColumnIndexFilter(true).useRecordFilter(true);
        }
        this.reader = builder.build();
      } catch (NoSuchFileException e) {
        throw TableErrors.missingDataFile(file, tableVersion);
      } catch (IOException | RuntimeException e) {
        throw TableErrors.unreadableDataFile(file, e);
      }
      if (filtered) {
        try {
          next = reader.read();
        } catch (IllegalArgumentException e) {
          // parquet refuses a filter whose value type differs from the file's column type before it reads a row
          close();
          throw new KeyFilters.NotApplicable(e);
        } catch (IOException | RuntimeException e) {
          close();
          throw e instanceof NoSuchFileException ? TableErrors.missingDataFile(file, tableVersion)
              : TableErrors.unreadableDataFile(file, e);
        }
        skipDeleted();
      } else {
        advance();
      }
    }

    private void advance() {
      try {
        next = reader.read();
      } catch (NoSuchFileException e) {
        close();
        throw TableErrors.missingDataFile(file, tableVersion);
      } catch (IOException | RuntimeException e) {
        close();
        throw TableErrors.unreadableDataFile(file, e);
      }
      skipDeleted();
    }

    /** Moves past the rows the deletion vector deletes, from the row just read on. */
    private void skipDeleted() {
      try {
        while (true) {
          nextPosition = filtered ? (next == null ? nextPosition : reader.getCurrentRowIndex()) : nextPosition + 1;
          if (next == null) {
            if (!filtered) {
              deletedRow(nextPosition); // the check below needs the deletion vector of a file read to its end
            }
            break;
          }
          if (!deletedRow(nextPosition)) {
            break;
          }
          next = reader.read();
        }
      } catch (NoSuchFileException e) {
        close();
        throw TableErrors.missingDataFile(file, tableVersion);
      } catch (IOException | RuntimeException e) {
        close();
        throw TableErrors.unreadableDataFile(file, e);
      }
      if (next == null && !filtered && deleted != null && nextPosition <= lastDeleted) {
        // a DV that deletes rows the file does not have belongs to another file: its other rows cannot be trusted
        close();
        throw TableErrors.deletionVectorPastEnd(file, nextPosition, lastDeleted);
      }
      if (next != null && decoder == null) {
        decoder = layout.decoder(next.getSchema());
      }
    }

    private boolean deletedRow(long position) {
      if (!deletionVectorRead) {
        deletionVectorRead = true;
        deleted = deletionVector.get();
        lastDeleted = deleted == null ? -1 : deleted.last();
      }
      return deleted != null && deleted.contains(position);
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public Version next() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      Version v;
      position = nextPosition;
      try {
        v = decoder.apply(next);
      } catch (RuntimeException e) {
        close();
        throw TableErrors.unreadableDataFile(file, e);
      }
      advance();
      return v;
    }

    /** The row position (0-based, in the file) of the version {@link #next()} returned last. */
    public long position() {
      return position;
    }

    @Override
    public void close() {
      try {
        reader.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
