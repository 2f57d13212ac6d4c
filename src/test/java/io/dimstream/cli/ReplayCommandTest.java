package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.codec.VersionJson;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.ChangeStreams;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code dimstream replay} as a black box: files in, JSON lines out, compared with the reference fold. */
class ReplayCommandTest {
  static final String SPEC_YAML = """
      name: customers
      columns:
        customer_id: long
        name: string
        email: string
        city: string
        tier: string
        updated_at: timestamp
        op: string
      key: [customer_id]
      sequence: [updated_at]
      track: [city, tier]
      delete: {column: op, equals: d}
      lateness_horizon: 365d
      """;

  @TempDir
  Path dir;
  Path config;
  DimensionSpec spec;

  /** What one run printed and returned. */
  record Run(int exitCode, List<String> stdout, String stderr) {}

  @BeforeEach
  void writeSpec() throws IOException {
    config = dir.resolve("customers.yaml");
    Files.writeString(config, SPEC_YAML);
    spec = DimensionSpecLoader.load(config);
  }

  Run replay(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 1];
    all[0] = "replay";
    System.arraycopy(args, 0, all, 1, args.length);
    int code = cl.execute(all);
    String printed = out.toString();
    return new Run(code, printed.isEmpty() ? List.of() : Arrays.asList(printed.split("\n")), err.toString());
  }

  List<String> expectedLines(List<ChangeEvent> eventsInArrivalOrder) {
    VersionJson json = new VersionJson(spec);
    return Scd2Fold.fold(spec, eventsInArrivalOrder).stream().map(json::replayLine).toList();
  }

  @Test
  void shouldPrintExactlyTheReferenceFoldOfAGeneratedFileInAnyOrder() throws IOException {
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 20260101L).keys(400).events(12_000)
        .late(0.08).duplicates(0.05).deletes(0.04).noChange(0.15).sameSequence(0.03).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);
    List<String> expected = expectedLines(stream.events());
    assertThat(expected).hasSizeGreaterThan(5_000);

    long start = System.nanoTime();
    Run run = replay("--config", config.toString(), "--input", input.toString());
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout()).containsExactlyElementsOf(expected);
    assertThat(run.stderr()).contains("Replayed 12,000 records").contains("0 rejected");
    System.err.println("replay of 12,000 events: " + millis + " ms");

    List<Integer> order = shuffleKeepingSameSequenceOrder(stream.events(), new Random(7));
    List<String> shuffledLines = new ArrayList<>();
    List<ChangeEvent> shuffledEvents = new ArrayList<>();
    for (int i : order) {
      shuffledLines.add(stream.jsonLines().get(i));
      shuffledEvents.add(stream.events().get(i));
    }
    assertThat(shuffledLines).isNotEqualTo(stream.jsonLines());
    assertThat(expectedLines(shuffledEvents)).as("the reference itself is order-free").isEqualTo(expected);
    Path shuffled = dir.resolve("shuffled.jsonl");
    Files.write(shuffled, shuffledLines, StandardCharsets.UTF_8);

    Run again = replay("--config", config.toString(), "--input", shuffled.toString());

    assertThat(again.exitCode()).as(again.stderr()).isZero();
    assertThat(again.stdout()).containsExactlyElementsOf(expected);
  }

  /** A random permutation in which events of one key with one sequence keep their relative order. */
  static List<Integer> shuffleKeepingSameSequenceOrder(List<ChangeEvent> events, Random rnd) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      order.add(i);
    }
    Collections.shuffle(order, rnd);
    Map<Map.Entry<BusinessKey, Sequence>, List<Integer>> slots = new HashMap<>();
    for (int pos = 0; pos < order.size(); pos++) {
      ChangeEvent e = events.get(order.get(pos));
      slots.computeIfAbsent(Map.entry(e.key(), e.sequence()), k -> new ArrayList<>()).add(pos);
    }
    for (List<Integer> positions : slots.values()) {
      List<Integer> members = new ArrayList<>();
      positions.forEach(p -> members.add(order.get(p)));
      Collections.sort(members);
      for (int i = 0; i < positions.size(); i++) {
        order.set(positions.get(i), members.get(i));
      }
    }
    return order;
  }

  @Test
  void shouldWriteRejectedRecordsToTheDlqFileAndProcessTheRest() throws IOException {
    Path input = dir.resolve("mixed.jsonl");
    String broken = "{\"customer_id\": 1, \"city\": ";
    String noKey = "{\"city\":\"Oslo\",\"updated_at\":\"2026-01-01T00:00:00Z\"}";
    Files.write(input, List.of(
        "{\"customer_id\":1,\"name\":\"Ann\",\"city\":\"Oslo\",\"tier\":\"gold\",\"updated_at\":\"2026-01-01T06:00:00Z\"}",
        broken,
        "",
        noKey,
        "{\"customer_id\":1,\"name\":\"Ann\",\"city\":\"Rome\",\"tier\":\"gold\",\"updated_at\":\"2026-01-02T06:00:00+01:00\"}"),
        StandardCharsets.UTF_8);
    Path dlq = dir.resolve("rejected.jsonl");

    Run run = replay("--config", config.toString(), "--input", input.toString(), "--dlq", dlq.toString());

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout()).containsExactly(
        "{\"customer_id\":1,\"name\":\"Ann\",\"email\":null,\"city\":\"Oslo\",\"tier\":\"gold\","
            + "\"valid_from\":\"2026-01-01T06:00:00Z\",\"valid_to\":\"2026-01-02T05:00:00Z\",\"is_current\":false}",
        "{\"customer_id\":1,\"name\":\"Ann\",\"email\":null,\"city\":\"Rome\",\"tier\":\"gold\","
            + "\"valid_from\":\"2026-01-02T05:00:00Z\",\"valid_to\":null,\"is_current\":true}");
    ObjectMapper m = new ObjectMapper();
    List<JsonNode> dead = new ArrayList<>();
    for (String l : Files.readAllLines(dlq)) {
      dead.add(m.readTree(l));
    }
    assertThat(dead).extracting(n -> n.get("reason").asText()).containsExactly("malformed-json", "missing-key");
    assertThat(dead).extracting(n -> n.get("record").asText()).containsExactly(broken, noKey);
    assertThat(dead).allSatisfy(n -> assertThat(n.get("detail").asText()).isNotBlank());
    assertThat(run.stderr()).contains("2 rejected");
  }

  @Test
  void shouldCountRejectedRecordsOnStderrWithoutDlqFile() throws IOException {
    Path input = dir.resolve("bad.jsonl");
    Files.write(input, List.of("not json", "{\"customer_id\":1}"), StandardCharsets.UTF_8);

    Run run = replay("--config", config.toString(), "--input", input.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(run.stdout()).isEmpty();
    assertThat(run.stderr()).contains("2 rejected").contains("--dlq");
  }

  @Test
  void shouldExitWithDocumentedCodes() throws IOException {
    Path input = dir.resolve("ok.jsonl");
    Files.writeString(input, "");
    Path badSpec = dir.resolve("bad.yaml");
    Files.writeString(badSpec, "name: x\ncolumns: {id: long}\nkey: [id]\n");

    assertThat(replay("--config", config.toString(), "--input", dir.resolve("missing.jsonl").toString()).exitCode())
        .isEqualTo(1);
    Run bad = replay("--config", badSpec.toString(), "--input", input.toString());
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.stderr()).contains("sequence");
    assertThat(replay("--config", config.toString()).exitCode()).isEqualTo(2);
    assertThat(replay("--config", dir.resolve("nope.yaml").toString(), "--input", input.toString()).exitCode())
        .isEqualTo(2);
    Run empty = replay("--config", config.toString(), "--input", input.toString());
    assertThat(empty.exitCode()).isZero();
    assertThat(empty.stdout()).isEmpty();
    assertThat(replay("--help").stdout()).anyMatch(l -> l.contains("Exit codes"));
  }
}
