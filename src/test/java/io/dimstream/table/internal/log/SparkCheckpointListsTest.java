package io.dimstream.table.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import io.dimstream.storage.ObjectInfo;
import java.util.List;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint as Spark writes it stores string lists in Parquet's three-level form (a repeated group {@code list}
 * holding one {@code element}); the table features and partition columns read from it are the strings themselves.
 */
class SparkCheckpointListsTest {
  private static final MessageType SPARK_SCHEMA = MessageTypeParser.parseMessageType("""
      message spark_schema {
        optional group protocol {
          optional int32 minReaderVersion;
          optional int32 minWriterVersion;
          optional group readerFeatures (LIST) { repeated group list { optional binary element (STRING); } }
          optional group writerFeatures (LIST) { repeated group list { optional binary element (STRING); } }
        }
        optional group metaData {
          optional binary id (STRING);
          optional binary schemaString (STRING);
          optional group partitionColumns (LIST) { repeated group list { optional binary element (STRING); } }
        }
      }""");

  @TempDir
  Path dir;

  @Test
  void shouldReadTableFeaturesAndPartitionColumnsFromThreeLevelLists() throws Exception {
    Path file = dir.resolve("00000000000000000010.checkpoint.parquet");
    SimpleGroupFactory rows = new SimpleGroupFactory(SPARK_SCHEMA);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withConf(new PlainParquetConfiguration()).withType(SPARK_SCHEMA)
        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).build()) {
      Group protocol = rows.newGroup();
      Group p = protocol.addGroup("protocol");
      p.add("minReaderVersion", 3);
      p.add("minWriterVersion", 7);
      p.addGroup("readerFeatures").addGroup("list").add("element", "deletionVectors");
      Group writer = p.addGroup("writerFeatures");
      for (String f : List.of("deletionVectors", "invariants", "appendOnly")) {
        writer.addGroup("list").add("element", f);
      }
      w.write(protocol);
      Group metadata = rows.newGroup();
      Group m = metadata.addGroup("metaData");
      m.add("id", "t");
      m.add("schemaString", "{\"type\":\"struct\",\"fields\":[]}");
      m.addGroup("partitionColumns").addGroup("list").add("element", "is_current");
      w.write(metadata);
    }

    TableState s = Checkpoints.read(new DeltaLog(dir),
        List.of(new ObjectInfo(file.getFileName().toString(), java.nio.file.Files.size(file), 0))).build(10, 0);

    assertThat(s.protocol.readerFeatures()).containsExactly("deletionVectors");
    assertThat(s.protocol.writerFeatures()).containsExactly("deletionVectors", "invariants", "appendOnly");
    assertThat(s.metadata.partitionColumns()).containsExactly("is_current");
  }
}
