package io.dimstream.table.internal.files;

import io.dimstream.model.Version;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;
import java.util.stream.Collectors;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.columnindex.RowRanges;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows at known positions of a data file: the offset index (each page's first row) picks the pages that
 * hold them, only those pages of each column are read and decoded, and only the rows asked for are assembled. A row group
 * without an offset index (a file another engine wrote without page indexes) is read whole.
 */
final class PositionReads {
  /**
   * Footers kept, by file and length (a data file never changes): the rows the next commits replace often lie in
   * the files the last ones read, and parsing a footer is a good part of reading one row of a file.
   */
  private static final int MAX_FOOTERS = 256;
  private static final Map<String, ParquetMetadata> FOOTERS = new LinkedHashMap<>(64, 0.75f, true);

  private PositionReads() {}

  /**
   * Calls {@code out} with the version at each of {@code positions} (0-based row positions in the file), in
   * ascending position order. The deletion vector is not consulted: callers ask for rows they know are live.
   *
   * @throws io.dimstream.table.TableException when the file is missing or unreadable, or has no row at a position
   */
  static void read(StoreInputFile file, TableLayout layout, long tableVersion, RoaringBitmapArray positions,
      ObjLongConsumer<Version> out) {
    long[] wanted = sorted(positions);
    if (wanted.length == 0) {
      return;
    }
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    conf.set(Int96.READ_AS_FIXED, "true");
    ParquetReadOptions options = ParquetReadOptions.builder(conf).withCodecFactory(PlainCodecFactory.INSTANCE)
        .build();
    int found = 0;
    try (ParquetFileReader reader = open(file, options)) {
      FileMetaData meta = reader.getFooter().getFileMetaData();
      MessageType fileSchema = meta.getSchema();
      Set<String> columns = layout.dataColumns.stream().map(c -> c.name()).collect(Collectors.toSet());
      ReadSupport<GenericRecord> support = ColumnProjection.support(columns);
      ReadSupport.ReadContext context = support.init(new InitContext(conf, multiMap(meta.getKeyValueMetaData()),
          fileSchema));
      MessageType requested = context.getRequestedSchema();
      reader.setRequestedSchema(requested);
      RecordMaterializer<GenericRecord> records = support.prepareForRead(conf, meta.getKeyValueMetaData(),
          fileSchema, context);
      MessageColumnIO io = new ColumnIOFactory(meta.getCreatedBy()).getColumnIO(requested, fileSchema, true);
      Function<GenericRecord, Version> decoder = null;
      for (int g = 0; g < reader.getRowGroups().size() && found < wanted.length; g++) {
        BlockMetaData group = reader.getRowGroups().get(g);
        long start = group.getRowIndexOffset();
        long end = start + group.getRowCount();
        int from = found;
        int to = from;
        while (to < wanted.length && wanted[to] < end) {
          to++;
        }
        if (to == from) {
          continue;
        }
        // Parquet's synchronizing column reader takes the last row asked for as the end of the reading when it
        // draws it from the row ranges while still on an earlier page, and returns the next row of that page in its
        // place: the row before it, asked for too, brings the reader onto the last row's page first.
        long last = wanted[to - 1] - start;
        boolean leadIn = last > 0 && (to - from == 1 || wanted[to - 2] != wanted[to - 1] - 1);
        RowRanges.Builder ranges = RowRanges.builder();
        for (int i = from; i < to; i++) {
          if (leadIn && i == to - 1) {
            ranges.addSelectedRow(last - 1);
          }
          ranges.addSelectedRow(wanted[i] - start);
        }
        PageReadStore pages;
        boolean whole;
        try {
          pages = reader.readFilteredRowGroup(g, ranges.build());
          whole = false;
        } catch (ColumnIndexStore.MissingOffsetIndexException e) {
          pages = reader.readRowGroup(g);
          whole = true;
        }
        RecordReader<GenericRecord> rows = io.getRecordReader(pages, records, FilterCompat.NOOP);
        long next = start; // the position of the row the reader assembles next, when it reads the group whole
        for (int i = from; i < to; i++) {
          for (; whole && next < wanted[i]; next++) {
            rows.read(); // without an offset index nothing skips the rows before the next one asked for
          }
          next++;
          if (!whole && leadIn && i == to - 1) {
            rows.read();
          }
          GenericRecord r = rows.read();
          if (decoder == null) {
            decoder = layout.decoder(r.getSchema());
          }
          out.accept(decoder.apply(r), wanted[i]);
        }
        found = to;
      }
    } catch (NoSuchFileException e) {
      throw TableErrors.missingDataFile(file, tableVersion);
    } catch (IOException | RuntimeException e) {
      throw TableErrors.unreadableDataFile(file, e);
    }
    if (found < wanted.length) {
      throw TableErrors.unreadableDataFile(file, new IllegalStateException("the file has no row at position "
          + wanted[found]));
    }
  }

  /** A reader of {@code file} on its kept footer; closing it closes its stream. */
  private static ParquetFileReader open(StoreInputFile file, ParquetReadOptions options) throws IOException {
    SeekableInputStream stream = file.newStream();
    try {
      return ParquetFileReader.open(file, footer(file, options, stream), options, stream);
    } catch (IOException | RuntimeException e) {
      stream.close();
      throw e;
    }
  }

  private static ParquetMetadata footer(StoreInputFile file, ParquetReadOptions options, SeekableInputStream stream)
      throws IOException {
    String id = file + "#" + file.getLength();
    synchronized (FOOTERS) {
      ParquetMetadata kept = FOOTERS.get(id);
      if (kept != null) {
        return kept;
      }
    }
    ParquetMetadata footer = ParquetFileReader.readFooter(file, options, stream);
    synchronized (FOOTERS) {
      FOOTERS.put(id, footer);
      if (FOOTERS.size() > MAX_FOOTERS) {
        FOOTERS.remove(FOOTERS.keySet().iterator().next());
      }
    }
    return footer;
  }

  private static long[] sorted(RoaringBitmapArray positions) {
    long[] out = new long[(int) positions.cardinality()];
    int[] n = {0};
    positions.forEach(p -> out[n[0]++] = p);
    return out;
  }

  private static Map<String, Set<String>> multiMap(Map<String, String> meta) {
    Map<String, Set<String>> out = new HashMap<>();
    meta.forEach((k, v) -> out.put(k, Set.of(v)));
    return out;
  }
}
