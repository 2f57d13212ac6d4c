package io.dimstream.table.internal.dv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.fixtures.SparkWrittenTables;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

class DeletionVectorFilesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path table;

  @Test
  void shouldEncodeTheZ85SpecificationsTestVector() {
    byte[] helloWorld = {(byte) 0x86, 0x4F, (byte) 0xD2, 0x6F, (byte) 0xB5, 0x59, (byte) 0xF7, 0x5B};
    assertThat(Z85.encode(helloWorld)).isEqualTo("HelloWorld");
    assertThat(Z85.decode("HelloWorld")).isEqualTo(helloWorld);
  }

  @Test
  void shouldRefuseTextOutsideTheZ85Alphabet() {
    assertThatThrownBy(() -> Z85.decode("Hello~orld")).hasMessageContaining("'~' at position 5");
  }

  @Test
  void shouldReadBackTheRowsItWrote() {
    // row positions of every magnitude up to 2^40: dense runs in one container, and sparse ones across the 2^32 split
    Gen<Long> position = integers().between(0, 40).flatMap(bits -> longs().between(0, 1L << bits));
    qt().withExamples(200).forAll(lists().of(position).ofSizeBetween(0, 300), booleans().all())
        .checkAssert((rows, inline) -> {
          try {
            readsBackTheRowsItWrote(rows, inline);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static void readsBackTheRowsItWrote(List<Long> rows, boolean inline) throws IOException {
    Path dir = Files.createTempDirectory("dv");
    RoaringBitmapArray written = new RoaringBitmapArray();
    rows.forEach(written::add);
    DeletionVectorDescriptor dv =
        DeletionVectorFiles.write(dir, List.of(written), inline ? Integer.MAX_VALUE : 0).get(0);

    assertThat(dv.isInline()).isEqualTo(inline);
    assertThat(dv.cardinality()).isEqualTo(new HashSet<>(rows).size());
    RoaringBitmapArray read = DeletionVectorFiles.read(dir, dv);
    assertThat(read).isEqualTo(written);
    List<Long> positions = new ArrayList<>();
    read.forEach(positions::add);
    assertThat(positions).isEqualTo(rows.stream().distinct().sorted().toList());
  }

  @Test
  void shouldWriteSeveralDeletionVectorsIntoOneFileAtTheirOffsets() {
    List<RoaringBitmapArray> dvs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      RoaringBitmapArray rows = new RoaringBitmapArray();
      for (long p = i; p < 10_000; p += 3 + i) {
        rows.add(p);
      }
      dvs.add(rows);
    }
    List<DeletionVectorDescriptor> descriptors = DeletionVectorFiles.write(table, dvs, 0);

    assertThat(descriptors.stream().map(d -> d.file(table)).distinct()).hasSize(1);
    assertThat(descriptors.get(0).offset()).isEqualTo(1);
    for (int i = 0; i < 3; i++) {
      assertThat(DeletionVectorFiles.read(table, descriptors.get(i))).isEqualTo(dvs.get(i));
    }
    assertThat(descriptors.get(0).file(table).getFileName().toString()).matches("deletion_vector_[0-9a-f-]{36}\\.bin");
  }

  @Test
  void shouldRefuseABlockWhoseChecksumDoesNotMatch() throws IOException {
    RoaringBitmapArray rows = new RoaringBitmapArray();
    rows.add(7);
    DeletionVectorDescriptor dv = DeletionVectorFiles.write(table, List.of(rows), 0).get(0);
    try (RandomAccessFile f = new RandomAccessFile(dv.file(table).toFile(), "rw")) {
      f.seek(dv.offset() + 4 + dv.sizeInBytes() - 1);
      int last = f.read();
      f.seek(dv.offset() + 4 + dv.sizeInBytes() - 1);
      f.write(last ^ 0x01);
    }
    assertThatThrownBy(() -> DeletionVectorFiles.read(table, dv)).isInstanceOf(DeletionVectorException.class)
        .hasMessageContaining(dv.file(table).toString()).hasMessageContaining("checksum")
        .hasMessageContaining("Fix:");
  }

  @Test
  void shouldNameAMissingDeletionVectorFile() {
    RoaringBitmapArray rows = new RoaringBitmapArray();
    rows.add(1);
    DeletionVectorDescriptor dv = DeletionVectorFiles.write(table, List.of(rows), 0).get(0);
    dv.file(table).toFile().delete();
    assertThatThrownBy(() -> DeletionVectorFiles.read(table, dv)).hasMessageContaining("is missing");
  }

  @Test
  void shouldRefuseBytesThatAreNotAPortableRoaringBitmapArray() {
    byte[] garbage = "not a bitmap at all".getBytes(StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> RoaringBitmapArray.deserialize(garbage)).hasMessageContaining("magic number");
  }

  /**
   * Spark's DELETE marked rows with DVs in files dimstream wrote; the rows that remain, file by file (records minus
   * deleted), must be exactly as many as Spark itself reads back, and every deleted position must lie in its file.
   */
  @Test
  void shouldReadTheDeletionVectorsSparkWrote() throws IOException {
    for (String name : List.of("dv-delete", "dv-update")) {
      Path root = SparkWrittenTables.table(name);
      Map<String, JsonNode> live = liveFiles(root);
      long remaining = 0;
      int withDv = 0;
      for (JsonNode add : live.values()) {
        long records = JSON.readTree(add.get("stats").asText()).get("numRecords").asLong();
        JsonNode dvJson = add.get("deletionVector");
        if (dvJson == null || dvJson.isNull()) {
          remaining += records;
          continue;
        }
        withDv++;
        DeletionVectorDescriptor dv = JSON.treeToValue(dvJson, DeletionVectorDescriptor.class);
        RoaringBitmapArray deleted = DeletionVectorFiles.read(root, dv);
        deleted.forEach(p -> assertThat(p).isBetween(0L, records - 1));
        remaining += records - deleted.cardinality();
      }
      long sparkRows;
      try (Stream<String> lines = Files.lines(SparkWrittenTables.expectedRows(name))) {
        sparkRows = lines.filter(l -> !l.isBlank()).count();
      }
      assertThat(withDv).as(name + ": files carrying a DV").isPositive();
      assertThat(remaining).as(name + ": rows left after the DVs").isEqualTo(sparkRows);
    }
  }

  /** The table's files at its newest version: commit by commit, removes then adds, keyed by path. */
  private static Map<String, JsonNode> liveFiles(Path root) throws IOException {
    Map<String, JsonNode> live = new LinkedHashMap<>();
    List<Path> commits;
    try (Stream<Path> files = Files.list(root.resolve("_delta_log"))) {
      commits = files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).sorted().toList();
    }
    for (Path commit : commits) {
      List<JsonNode> adds = new ArrayList<>();
      Set<String> removes = new HashSet<>();
      for (String line : Files.readAllLines(commit)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode action = JSON.readTree(line);
        if (action.has("add")) {
          adds.add(action.get("add"));
        } else if (action.has("remove")) {
          removes.add(action.get("remove").get("path").asText());
        }
      }
      removes.forEach(live::remove);
      adds.forEach(a -> live.put(a.get("path").asText(), a));
    }
    return live;
  }
}
