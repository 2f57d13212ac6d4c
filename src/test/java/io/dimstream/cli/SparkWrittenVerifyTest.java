package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.fixtures.SparkWrittenTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code table verify} on tables Spark wrote to: every version of each holds the SCD2 invariants. */
class SparkWrittenVerifyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Stream<String> fixtures() {
    return Stream.of("base", "dv-delete", "dv-update", "int96-optimize", "optimize-micros", "checkpoint-nostats");
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void shouldVerifyEveryVersionOfASparkWrittenTable(String name) throws IOException {
    String table = SparkWrittenTables.table(name).toString();
    long rows;
    try (Stream<String> lines = Files.lines(SparkWrittenTables.expectedRows(name))) {
      rows = lines.filter(l -> !l.isBlank()).count();
    }
    QueryCommandTest.Run latest = QueryCommandTest.run(new TableCommand(), "verify", "--table", table);
    assertThat(latest.code()).as(latest.out() + latest.err()).isZero();
    assertThat(latest.out()).startsWith("OK: table version").contains(" " + rows + " versions of ");
    long versions;
    try (Stream<Path> files = Files.list(SparkWrittenTables.table(name).resolve("_delta_log"))) {
      versions = files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.json")).count();
    }
    assertThat(versions).isGreaterThan(1);
    for (long v = 1; v < versions; v++) {
      QueryCommandTest.Run old = QueryCommandTest.run(new TableCommand(), "verify", "--table", table, "--version",
          Long.toString(v));
      assertThat(old.code()).as(old.out() + old.err()).isZero();
      assertThat(old.out()).startsWith("OK: table version " + v);
    }
  }

  /**
   * A writer that replaced rows but forgot their deletion vectors leaves the old and the new open version of a key
   * side by side; verify names those keys. Made from {@code dv-update} by dropping the DVs of its UPDATE commit.
   */
  @Test
  void shouldFailOnTwoOpenVersionsLeftByAWriterThatForgotItsDeletionVectors(@TempDir Path dir) throws IOException {
    Path from = SparkWrittenTables.table("dv-update");
    Path copy = dir.resolve("t");
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = copy.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!f.getFileName().toString().endsWith(".crc")) {
          Files.copy(f, target);
        }
      }
    }
    Path commit = copy.resolve("_delta_log/00000000000000000003.json");
    Set<String> marked = new HashSet<>();
    List<JsonNode> actions = new ArrayList<>();
    for (String line : Files.readAllLines(commit)) {
      JsonNode a = JSON.readTree(line);
      if (a.has("add") && a.get("add").has("deletionVector")) {
        ((ObjectNode) a.get("add")).remove("deletionVector");
        marked.add(a.get("add").get("path").asText());
      }
      actions.add(a);
    }
    List<String> kept = new ArrayList<>();
    for (JsonNode a : actions) {
      if (!(a.has("remove") && marked.contains(a.get("remove").get("path").asText()))) {
        kept.add(JSON.writeValueAsString(a));
      }
    }
    Files.write(commit, kept);
    assertThat(marked).isNotEmpty();
    QueryCommandTest.Run r = QueryCommandTest.run(new TableCommand(), "verify", "--table", copy.toString());
    assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
    assertThat(r.out()).startsWith("FAILED").contains("2 versions are open (valid_to null); at most one may be");
  }
}
