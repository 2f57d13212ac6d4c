package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Feature;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A commit whose commit file cannot be written after its data files were: the outcome is unknown, so the writer
 * must stop at once (no retry) and delete nothing. The failure is real: a file system without hard links (the
 * commit file is then created exclusively and copied in) whose disk is full when the commit file is written.
 */
class CommitStateUnknownTest {
  /** Every file of this test (a Parquet file of one row, a commit file) takes exactly one block. */
  private static final int BLOCK = 64 * 1024;

  @Test
  void shouldStopAndKeepTheDataFilesWhenTheCommitFileCannotBeWritten() throws Exception {
    try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix().toBuilder()
        .setSupportedFeatures(Feature.FILE_CHANNEL, Feature.SYMBOLIC_LINKS, Feature.SECURE_DIRECTORY_STREAM)
        .setBlockSize(BLOCK)
        .setMaxSize(64L * BLOCK)
        .build())) {
      Path root = fs.getPath("/tables/customers");
      DeltaTable table = DeltaTable.create(root, customers(), Map.of());
      // Leave room for one data file and the temporary commit file, not for the commit file itself.
      fillDiskLeavingBlocks(fs.getPath("/filler"), 2);

      assertThatThrownBy(() -> table.newCommit(Operation.MERGE).txns(Map.of("app-0", 5L))
          .apply(upserts(version(1, 0, null, "ann"))))
          .isInstanceOf(CommitStateUnknownException.class)
          .hasMessageContaining(root.resolve("_delta_log").resolve("00000000000000000001.json").toString())
          .hasMessageContaining("it is unknown whether it was committed")
          .hasMessageContaining("deleted nothing");

      List<Path> dataFiles = dataFiles(root);
      assertThat(dataFiles).as("the data file of the one attempt is kept, none of a second attempt").hasSize(1);
      assertThat(Files.size(dataFiles.get(0))).isPositive();
      // The disk filled while the commit file was being written: it is left as it is, for an operator to judge.
      Path commitFile = root.resolve("_delta_log").resolve("00000000000000000001.json");
      assertThat(commitFile).exists();
      assertThatThrownBy(() -> DeltaTable.open(root)).isInstanceOf(TableException.class)
          .hasMessageContaining(commitFile + ": line 1 of the commit file is not a valid Delta action");
      try (Stream<Path> log = Files.list(root.resolve("_delta_log"))) {
        assertThat(log.map(p -> p.getFileName().toString()))
            .as("no temporary commit file is left behind").noneMatch(n -> n.endsWith(".tmp"));
      }
    }
  }

  private static void fillDiskLeavingBlocks(Path filler, int blocks) throws Exception {
    long free = Files.getFileStore(filler.getRoot()).getUnallocatedSpace();
    Files.write(filler, new byte[Math.toIntExact(free - (long) blocks * BLOCK)]);
    assertThat(Files.getFileStore(filler.getRoot()).getUnallocatedSpace()).isEqualTo((long) blocks * BLOCK);
  }

  private static List<Path> dataFiles(Path root) throws Exception {
    try (Stream<Path> all = Files.walk(root)) {
      return all.filter(p -> p.getFileName().toString().endsWith(".parquet")).toList();
    }
  }
}
