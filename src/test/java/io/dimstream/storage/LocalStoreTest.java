package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A local table shared with Hadoop-based engines (Spark, Delta Kernel's default engine). */
class LocalStoreTest {
  @TempDir
  Path dir;

  @Test
  void shouldLeaveAFileHadoopWroteReadableByHadoopAfterReplacingIt() throws Exception {
    FileSystem hadoop = FileSystem.getLocal(new Configuration());
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("_delta_log/_last_checkpoint").toUri());
    try (FSDataOutputStream out = hadoop.create(file)) {
      out.write("{\"version\":10,\"size\":14}".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(dir.resolve("_delta_log/._last_checkpoint.crc")).exists();

    new LocalStore(dir).put("_delta_log/_last_checkpoint", "{\"version\":12,\"size\":9}".getBytes(StandardCharsets.UTF_8));

    try (FSDataInputStream in = hadoop.open(file)) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"version\":12,\"size\":9}");
    }
  }

  @Test
  void shouldDeleteHadoopsChecksumWithTheFile() throws Exception {
    Files.createDirectories(dir.resolve("is_current=true"));
    Files.writeString(dir.resolve("is_current=true/part-0.parquet"), "data");
    Files.writeString(dir.resolve("is_current=true/.part-0.parquet.crc"), "crc");

    new LocalStore(dir).delete("is_current=true/part-0.parquet");

    try (var files = Files.list(dir.resolve("is_current=true"))) {
      assertThat(files).isEmpty();
    }
  }
}
