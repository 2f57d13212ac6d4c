package io.dimstream.table.internal.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.LocalStore;
import io.dimstream.table.TableException;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows read by their positions are the rows a full read of the file finds at those positions: on one page, across
 * pages whose boundaries differ between columns, across row groups, and in a file without an offset index.
 */
class PositionReadsTest {
  private static final int ROWS = 10_000;
  private static final TableLayout LAYOUT = new TableLayout(spec());

  @TempDir
  Path dir;

  private static DimensionSpec spec() {
    return DimensionSpec.builder("accounts").column("region", "string").column("account", "long")
        .column("name", "string").column("note", "string").column("at", "long").key("region", "account")
        .sequence("at").build();
  }

  /**
   * Rows in identity order; every seventh name null (definition levels to keep in step), and a long note that fills
   * the note column's pages after some tens of rows, while the other columns' pages hold {@link DataFiles#PAGE_ROWS}.
   */
  private static List<Version> rows() {
    List<Version> out = new ArrayList<>();
    for (long k = 0; k < ROWS; k++) {
      String name = k % 7 == 0 ? null : "name" + k % 97;
      String note = "note " + k + " " + "x".repeat(1_000);
      out.add(new Version(BusinessKey.of("eu", k), Sequence.of(k), k % 3 == 0 ? Sequence.of(k + 1) : null,
          Arrays.asList(name, note)));
    }
    return out;
  }

  @Test
  void shouldReadRowsOnOnePageAcrossPagesAndAcrossRowGroups() throws Exception {
    AddFile file = write("groups.parquet", 3_000);
    assertThat(rowGroups(file)).as("row groups of the file").isEqualTo(4);
    long[] positions = {0, 1, 2, 17, 1_999, 2_000, 2_001, 2_999, 3_000, 3_001, 4_321, 5_999, 6_000, 9_998, 9_999};
    assertThat(readPositions(file, positions)).isEqualTo(readWhole(file, positions));
  }

  /** Parquet's row-range reader, left alone, returns the row after the one before instead. */
  @Test
  void shouldReadTheLastRowAskedForWhenItIsAloneOnALaterPage() throws Exception {
    AddFile file = write("last.parquet", 3_000);
    for (long[] positions : new long[][] {{2_001, 2_999}, {4_321, 5_999}, {17, 2_000}, {9_999}}) {
      assertThat(readPositions(file, positions)).as("positions %s", Arrays.toString(positions))
          .isEqualTo(readWhole(file, positions));
    }
  }

  @Test
  void shouldReadAnyPositionsLikeAFullRead() throws Exception {
    AddFile file = write("random.parquet", 4_000);
    Map<Long, Version> all = readWhole(file, LongStream.range(0, ROWS).toArray());
    Random random = new Random(7);
    for (int round = 0; round < 20; round++) {
      long[] positions = random.longs(1 + random.nextInt(200), 0, ROWS).distinct().sorted().toArray();
      Map<Long, Version> expected = new LinkedHashMap<>();
      for (long p : positions) {
        expected.put(p, all.get(p));
      }
      assertThat(readPositions(file, positions)).as("positions %s", Arrays.toString(positions))
          .isEqualTo(expected);
    }
  }

  @Test
  void shouldReadAFileDimstreamWroteAtEachPosition() {
    AddFile file = DataFiles.write(dir, "plain.parquet", rows(), LAYOUT, true, CompressionCodecName.SNAPPY);
    long[] every = LongStream.range(0, ROWS).toArray();
    assertThat(readPositions(file, every)).isEqualTo(readWhole(file, every));
  }

  @Test
  void shouldReadTheRowGroupsWholeWhenTheFileHasNoOffsetIndex() throws Exception {
    AddFile file = withoutPageIndexes(write("no-index.parquet", 3_000));
    long[] positions = {0, 1, 2_000, 2_999, 3_000, 7_777, 9_999};
    assertThat(readPositions(file, positions)).isEqualTo(readWhole(file, positions));
  }

  @Test
  void shouldFailWhenAPositionIsPastTheLastRow() throws Exception {
    AddFile file = write("short.parquet", 3_000);
    assertThatThrownBy(() -> readPositions(file, new long[] {5, ROWS}))
        .isInstanceOf(TableException.class).hasMessageContaining("no row at position " + ROWS);
  }

  private Map<Long, Version> readPositions(AddFile file, long[] positions) {
    RoaringBitmapArray marked = new RoaringBitmapArray();
    for (long p : positions) {
      marked.add(p);
    }
    Map<Long, Version> out = new LinkedHashMap<>();
    DataFiles.readPositions(new LocalStore(dir), file, LAYOUT, 1, marked, (v, p) -> out.put(p, v));
    return out;
  }

  private Map<Long, Version> readWhole(AddFile file, long[] positions) {
    Map<Long, Version> all = new LinkedHashMap<>();
    try (DataFiles.RowIterator it = DataFiles.read(dir, file, LAYOUT, 1)) {
      while (it.hasNext()) {
        Version v = it.next();
        all.put(it.position(), v);
      }
    }
    Map<Long, Version> out = new LinkedHashMap<>();
    for (long p : positions) {
      out.put(p, all.get(p));
    }
    return out;
  }

  /** A file of {@link #rows()} in row groups of {@code groupRows} rows, with small pages for the long notes. */
  private AddFile write(String name, int groupRows) throws Exception {
    Path path = dir.resolve(name);
    try (ParquetWriter<Version> w = new VersionWriteSupport.Builder(new LocalOutputFile(path), LAYOUT,
            new StatsCollector(LAYOUT.dataColumns))
        .withConf(new PlainParquetConfiguration())
        .withCodecFactory(PlainCodecFactory.INSTANCE)
        .withCompressionCodec(CompressionCodecName.SNAPPY)
        .withPageRowCountLimit(DataFiles.PAGE_ROWS)
        .withPageSize(64 << 10)
        .withRowGroupRowCountLimit(groupRows)
        .build()) {
      for (Version v : rows()) {
        w.write(v);
      }
    }
    return new AddFile(name, LAYOUT.partitionValues(true), Files.size(path), 0, true, null);
  }

  private int rowGroups(AddFile file) throws Exception {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(dir.resolve(file.path())))) {
      return reader.getRowGroups().size();
    }
  }

  /** The file with a footer that names no column index and no offset index, as older writers leave them. */
  private AddFile withoutPageIndexes(AddFile file) throws Exception {
    Path path = dir.resolve(file.path());
    byte[] bytes = Files.readAllBytes(path);
    int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int footerAt = bytes.length - 8 - footerLength;
    FileMetaData footer = Util.readFileMetaData(new ByteArrayInputStream(bytes, footerAt, footerLength));
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk column : group.getColumns()) {
        column.unsetOffset_index_offset();
        column.unsetOffset_index_length();
        column.unsetColumn_index_offset();
        column.unsetColumn_index_length();
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(bytes, 0, footerAt);
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    Util.writeFileMetaData(footer, written);
    written.writeTo(out);
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(written.size()).array());
    out.write("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    Files.write(path, out.toByteArray());
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
      assertThat(reader.getFooter().getBlocks().get(0).getColumns().get(0).getOffsetIndexReference())
          .as("offset index left").isNull();
    }
    return new AddFile(file.path(), file.partitionValues(), Files.size(path), 0, true, null);
  }
}
