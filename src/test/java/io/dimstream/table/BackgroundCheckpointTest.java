package io.dimstream.table;

import static io.dimstream.table.Versions.customers;
import static io.dimstream.table.Versions.scan;
import static io.dimstream.table.Versions.sorted;
import static io.dimstream.table.Versions.upserts;
import static io.dimstream.table.Versions.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.table.internal.log.DeltaLog;
import io.dimstream.model.Version;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.log.Checkpoints;
import io.dimstream.table.internal.log.TableState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints written on a background thread: complete, named in _last_checkpoint, with the files' owner tags, read by
 * Kernel and by us.
 */
class BackgroundCheckpointTest {
  @TempDir
  Path dir;

  @Test
  void shouldWriteTheDueCheckpointOffTheCommitAndReadFromItLikeKernel() throws Exception {
    DeltaTable table = DeltaTable.create(dir, customers(), Map.of("delta.checkpointInterval", "4"),
        TableOptions.defaults().withBackgroundCheckpoints(true));
    for (long k = 1; k <= 8; k++) {
      Version v = version(k, 0, null, "v" + k);
      // each key's rows in a file its partition owns, tagged so in the log (and so in the checkpoint)
      table.newCommit(Operation.WRITE).txns(Map.of("app", k)).partitions(Map.of(v.id(), (int) (k % 2)))
          .apply(upserts(v));
    }
    List<Version> expected = scan(table.latest());
    Path log = dir.resolve("_delta_log");
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log.resolve("_last_checkpoint"))
        && new ObjectMapper().readTree(log.resolve("_last_checkpoint").toFile()).get("version").asLong() == 8);
    assertThat(log.resolve(String.format("%020d.checkpoint.parquet", 8))).exists();
    TableState checkpointed = Checkpoints.read(new DeltaLog(dir), new DeltaLog(dir).checkpointParts(8))
        .build(8, 0);
    assertThat(checkpointed.adds.values()).extracting(AddFile::tags)
        .contains(Map.of("dimstream.partition", "0"), Map.of("dimstream.partition", "1"));

    // remove the commits before the checkpoint: both readers must now read the table from the checkpoint
    for (long v = 0; v < 8; v++) {
      Files.delete(log.resolve(String.format("%020d.json", v)));
    }
    assertThat(sorted(KernelReader.latest(dir, customers()))).isEqualTo(expected);
    DeltaTable reopened = DeltaTable.open(dir);
    assertThat(scan(reopened.latest())).isEqualTo(expected);
    assertThat(reopened.txnVersion("app")).isEqualTo(8);
  }
}
