package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.change.RejectReason;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.TopologyRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds the batch backfill equal to the streaming path: the same generated stream (late, duplicate, same-sequence,
 * delete, no-change events, plus broken records) gives the same versions as {@code replay} through the real
 * topology under TopologyTestDriver and as the reference fold, and the same dead letters in the same order.
 */
class BackfillEquivalenceTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(Named.of("default horizon, nothing too late", ""), 11L, false),
        Arguments.of(Named.of("2-hour horizon rejects many late events", "lateness_horizon: 2h\n"), 12L, true),
        Arguments.of(Named.of("6-hour horizon rejects some", "lateness_horizon: 6h\n"), 13L, true));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void shouldEqualReplayAndTheReferenceFoldIncludingTheDeadLetters(String horizon, long seed, boolean bounded)
      throws Exception {
    Path yaml = dir.resolve("customers.yaml");
    Files.writeString(yaml, Files.readString(Path.of("examples/customers.yaml")) + horizon);
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    // generated under the default 30-day horizon, so events later than the case's horizon occur
    DimensionSpec generated = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(generated, seed).keys(200).events(8_000)
        .late(0.05).duplicates(0.02).deletes(0.01).noChange(0.05).sameSequence(0.02).generate();
    List<String> lines = new ArrayList<>(stream.jsonLines());
    lines.add(1_000, "{\"customer_id\": 7, \"city\": \"Oslo\"");
    lines.add(4_000, "{\"city\": \"Oslo\", \"updated_at\": \"2026-01-02T00:00:00Z\"}");
    Path dlq = dir.resolve("dlq.jsonl");

    Backfill.Result backfill = new Backfill(spec).build(BackfillInputs.of(lines), "changes.jsonl", dlq);
    List<TopologyRunner.Rejection> rejections = new ArrayList<>();
    TopologyRunner.Replay replay = TopologyRunner.replay(spec,
        lines.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).iterator(), rejections::add);

    assertThat(backfill.versions()).containsExactlyElementsOf(replay.history());
    List<JsonNode> dead = deadLetters(dlq);
    assertThat(dead).extracting(n -> n.get("reason").asText())
        .containsExactlyElementsOf(rejections.stream().map(TopologyRunner.Rejection::reason).toList());
    assertThat(dead).extracting(n -> n.get("detail").asText())
        .containsExactlyElementsOf(rejections.stream().map(TopologyRunner.Rejection::detail).toList());
    assertThat(dead).extracting(n -> n.get("record").asText())
        .containsExactlyElementsOf(rejections.stream().map(TopologyRunner.Rejection::valueText).toList());
    assertThat(backfill.rejected()).isEqualTo(replay.rejected()).isEqualTo(dead.size());
    assertThat(backfill.read()).isEqualTo(lines.size());

    // the reference fold of the events within the horizon of their key's newest at arrival (docs/concepts.md, "Late data")
    List<ChangeEvent> accepted = new ArrayList<>();
    Map<BusinessKey, Long> newest = new HashMap<>();
    long tooLate = 0;
    for (ChangeEvent e : stream.events()) {
      Long max = newest.get(e.key());
      if (max != null && e.sequence().first() < max - spec.latenessHorizon()) {
        tooLate++;
        continue;
      }
      accepted.add(e);
      newest.merge(e.key(), e.sequence().first(), Math::max);
    }
    assertThat(backfill.versions()).containsExactlyElementsOf(Scd2Fold.fold(spec, accepted));
    assertThat(dead).filteredOn(n -> n.get("reason").asText().equals(RejectReason.BEYOND_LATENESS_HORIZON))
        .hasSize((int) tooLate);
    assertThat(dead).hasSize(2 + (int) tooLate);
    if (bounded) {
      assertThat(tooLate).as("the case must exercise the lateness horizon").isPositive();
    }
  }

  private static List<JsonNode> deadLetters(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      out.add(JSON.readTree(line));
    }
    return out;
  }
}
