package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.dimstream.batch.Backfill;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.DimensionTestDriver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code output.version_id}: the same id per (key, valid_from) in the table (read by Delta Kernel) and in replay. */
class VersionIdColumnTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Engine ENGINE = DefaultEngine.create(new Configuration());
  private static final List<String> EVENTS = List.of(
      "{\"customer_id\": 1, \"city\": \"Oslo\", \"updated_at\": \"2026-01-01T00:00:00Z\"}",
      "{\"customer_id\": 1, \"city\": \"Rome\", \"updated_at\": \"2026-03-01T00:00:00Z\"}",
      "{\"customer_id\": 2, \"city\": \"Bern\", \"updated_at\": \"2026-01-05T00:00:00Z\"}",
      // late: splits customer 1's history
      "{\"customer_id\": 1, \"city\": \"Nice\", \"updated_at\": \"2026-02-01T00:00:00Z\"}");

  @TempDir
  Path dir;

  private DimensionSpec spec(String output) throws IOException {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(file, """
        name: customers
        columns: {customer_id: long, city: string, updated_at: timestamp}
        key: [customer_id]
        sequence: [updated_at]
        """ + output);
    return DimensionSpecLoader.load(file);
  }

  @Test
  void shouldWriteTheSameVersionIdsToTheTableAsReplayShows() throws Exception {
    DimensionSpec spec = spec("output: {version_id: version_sk}\n");
    Backfill backfill = new Backfill(spec);
    backfill.write(backfill.build(inputs(), "changes.jsonl", null), dir.resolve("table"));

    Map<String, Long> table = new HashMap<>();
    for (Map<String, Object> row : KernelReader.rows(
        io.delta.kernel.Table.forPath(ENGINE, dir.resolve("table").toString()).getLatestSnapshot(ENGINE))) {
      table.put(row.get("customer_id") + "@" + row.get("valid_from"), (Long) row.get("version_sk"));
    }
    Map<String, Long> replay = new HashMap<>();
    try (DimensionTestDriver dim = DimensionTestDriver.of(spec)) {
      dim.send(EVENTS.toArray(String[]::new));
      for (String line : dim.replayLines()) {
        JsonNode n = JSON.readTree(line);
        replay.put(n.get("customer_id").asLong() + "@" + n.get("valid_from").asText(), n.get("version_sk").asLong());
      }
    }

    assertThat(table).hasSize(4).isEqualTo(replay);
    assertThat(table.values()).doesNotHaveDuplicates();
  }

  @Test
  void shouldRefuseAVersionIdThatClashesWithAColumn() {
    assertThatThrownBy(() -> spec("output: {version_id: city}\n")).isInstanceOf(io.dimstream.spec.SpecException.class)
        .hasMessageContaining("city").hasMessageContaining("clashes");
  }

  private static java.util.Iterator<Backfill.Input> inputs() {
    java.util.List<Backfill.Input> in = new java.util.ArrayList<>();
    for (int i = 0; i < EVENTS.size(); i++) {
      in.add(new Backfill.Input(i + 1, EVENTS.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    return in.iterator();
  }
}
