package io.dimstream.table.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.files.FileOwner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTagsTest {
  @TempDir
  Path dir;

  @Test
  void shouldCarryEachFilesTagsThroughACheckpoint() throws Exception {
    DeltaLog log = new DeltaLog(dir);
    Files.createDirectories(dir.resolve("_delta_log"));
    TableState.Builder b = new TableState.Builder();
    b.apply(Protocol.DEFAULT);
    b.apply(new Metadata("id", "customers", "{\"type\":\"struct\",\"fields\":[]}", List.of(), Map.of(), 0));
    // a name without the p<partition>- prefix: the owner can only come from the tag
    AddFile owned = FileOwner.tag(new AddFile("part-0001.parquet", Map.of(), 100, 1, true, null), 3);
    AddFile plain = new AddFile("part-0002.parquet", Map.of(), 100, 1, true, null);
    b.apply(owned);
    b.apply(plain);
    Checkpoints.write(log, b.build(1, 0), 0);

    TableState read = Checkpoints.read(log, log.checkpointParts(1)).build(1, 0);
    assertThat(read.adds.values()).containsExactly(owned, plain);
    assertThat(FileOwner.of(read.adds.get("part-0001.parquet")).getAsInt()).isEqualTo(3);
    assertThat(FileOwner.of(read.adds.get("part-0002.parquet"))).isEmpty();
  }
}
