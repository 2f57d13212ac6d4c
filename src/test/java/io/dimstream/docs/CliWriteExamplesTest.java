package io.dimstream.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command lines of the docs that write a table ({@code backfill}, {@code apply-snapshot}, {@code table optimize},
 * {@code vacuum}, {@code upgrade}, and {@code verify} and {@code history} beside them) run as shown, page by page in
 * the order the page shows them, each documented table in a directory of its own: every one exits with 0, and where
 * a console block shows what it prints, it prints that. A command on a table the page has not built yet finds the
 * table the CLI reference describes: the bundled example's changes, backfilled.
 */
class CliWriteExamplesTest {
  private static final Pattern COMMAND = Pattern.compile("^(?:\\$ )?(?:\\./)?dimstream (.+)$");
  private static final Set<String> WRITES = Set.of("backfill", "apply-snapshot");
  private static final Set<String> TABLE_COMMANDS = Set.of("optimize", "vacuum", "upgrade", "verify", "history");
  private static final Pattern TABLE = Pattern.compile("--table (\\S+)");
  private static final Pattern METRIC = Pattern.compile("\\b[A-Za-z]+=");
  private static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");

  @Test
  void shouldRunEveryCommandThatWritesATableAsTheDocsShowIt(@TempDir Path dir) throws Exception {
    Map<String, Path> tables = new HashMap<>();
    List<String> ran = new ArrayList<>();
    for (DocExamples.Block block : DocExamples.blocks()) {
      if (!List.of("bash", "sh", "console", "shell", "").contains(block.language())) {
        continue;
      }
      for (Example example : examples(block)) {
        Matcher table = TABLE.matcher(example.args());
        if (!table.find()) {
          continue;
        }
        String documented = block.page() + " " + table.group(1);
        Path local = tables.computeIfAbsent(documented, d -> dir.resolve("table-" + tables.size()));
        String args = table.replaceFirst("--table " + Matcher.quoteReplacement(local.toString()));
        if (!args.startsWith("backfill ") && !Files.isDirectory(local.resolve("_delta_log"))) {
          backfillTheExample(local);
        }
        Run run = run(args);
        assertThat(run.code()).as("%s: dimstream %s%n%s", block.page(), example.args(), run.err()).isZero();
        if (!example.output().isEmpty()) {
          // the page shows what the command prints, on stdout or (the loads' reports) on stderr, among log lines
          List<String> printed = normalised(run.out() + "\n" + run.err());
          List<String> shown = normalised(example.output());
          assertThat(printed).as("%s: what dimstream %s prints", block.page(), example.args())
              .containsSubsequence(shown);
        }
        ran.add(block.page() + ": " + example.args());
      }
    }
    assertThat(ran).as("commands of the docs that write a table, run")
        .anyMatch(r -> r.contains(": backfill "))
        .anyMatch(r -> r.contains(": apply-snapshot "))
        .anyMatch(r -> r.contains(": table optimize "))
        .anyMatch(r -> r.contains(": table vacuum "));
  }

  /** The table the CLI reference's examples read: the bundled example's changes, backfilled. */
  private static void backfillTheExample(Path table) throws Exception {
    Run r = run("backfill --config examples/customers.yaml --input examples/customers-changes.jsonl --table "
        + table);
    assertThat(r.code()).as(r.err()).isZero();
  }

  /** A command line with the output a console block shows after it (empty when none is shown). */
  private record Example(String args, String output) {}

  private static List<Example> examples(DocExamples.Block block) {
    List<Example> out = new ArrayList<>();
    List<String> lines = joinContinuations(block.text());
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = COMMAND.matcher(lines.get(i).strip());
      if (!m.matches()) {
        continue;
      }
      String args = commandPart(m.group(1));
      String[] words = args.split(" ");
      boolean writes = WRITES.contains(words[0])
          || words[0].equals("table") && words.length > 1 && TABLE_COMMANDS.contains(words[1]);
      if (!writes || isTemplate(args) || args.contains("://") || args.contains("--bootstrap-servers")) {
        continue;
      }
      StringBuilder output = new StringBuilder();
      if (lines.get(i).startsWith("$ ")) {
        for (int j = i + 1; j < lines.size() && !lines.get(j).startsWith("$ ") && !lines.get(j).isEmpty(); j++) {
          output.append(lines.get(j)).append('\n');
        }
      }
      out.add(new Example(args, output.toString().strip()));
    }
    return out;
  }

  /**
   * Timestamps differ from run to run, and so do the sizes and times among the history's metrics: a line is compared
   * up to its first {@code name=value} metric, with any run of blanks as one.
   */
  private static List<String> normalised(String text) {
    List<String> out = new ArrayList<>();
    for (String line : text.strip().split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String s = TIMESTAMP.matcher(line).replaceAll("<time>");
      Matcher metric = METRIC.matcher(s);
      if (metric.find()) {
        s = s.substring(0, metric.start());
      }
      out.add(s.replaceAll("\\s+", " ").strip());
    }
    return out;
  }

  private record Run(int code, String out, String err) {}

  /**
   * Runs the CLI in this JVM. The loads report on {@code System.err}, which is captured too ({@code System.out} is
   * left alone: the commands print through the command line's writer).
   */
  private static synchronized Run run(String args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    PrintStream oldErr = System.err;
    int code;
    try {
      System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
      code = cli.execute(tokens(args));
    } finally {
      System.setErr(oldErr);
    }
    return new Run(code, out.toString(), err + stderr.toString(StandardCharsets.UTF_8));
  }

  private static List<String> joinContinuations(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
      } else {
        out.add(current.append(line).toString());
        current.setLength(0);
      }
    }
    return out;
  }

  /** The command without a trailing comment, pipe or redirection. */
  private static String commandPart(String args) {
    String s = args.replaceAll("\\s+#.*$", "");
    for (String cut : List.of(" | ", " > ", " 2>", " &&")) {
      int i = s.indexOf(cut);
      if (i >= 0) {
        s = s.substring(0, i);
      }
    }
    return s.strip().replaceAll("\\s+", " ");
  }

  /** A synopsis rather than a command: optional parts, alternatives, placeholders. */
  private static boolean isTemplate(String args) {
    return args.contains("[") || args.contains("<") || args.contains("...") || args.contains("|")
        || args.contains("…") || args.contains("{");
  }

  /** Splits like a shell for the docs' lines: spaces, and single or double quotes around a word. */
  private static String[] tokens(String args) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("\"([^\"]*)\"|'([^']*)'|(\\S+)").matcher(args);
    while (m.find()) {
      out.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
    }
    return out.toArray(String[]::new);
  }
}
