package io.dimstream.docs;

import static io.dimstream.docs.DocCommandLines.commandPart;
import static io.dimstream.docs.DocCommandLines.isTemplate;
import static io.dimstream.docs.DocCommandLines.joinContinuations;
import static io.dimstream.docs.DocCommandLines.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command lines the docs show: each one the CLI accepts, and the query examples of the CLI reference print what
 * the page says when run against the table built from the bundled example.
 */
class CliExamplesTest {
  /** A dimstream command line in a shell block: {@code ./dimstream ...}, {@code dimstream ...}, {@code $ dimstream ...}. */
  private static final Pattern COMMAND = Pattern.compile("^(?:\\$ )?(?:\\./)?dimstream (.+)$");

  @Test
  void shouldAcceptEveryCommandLineTheDocsShow() {
    List<String> refused = new ArrayList<>();
    int checked = 0;
    for (DocExamples.Block block : DocExamples.blocks()) {
      if (!List.of("bash", "sh", "console", "shell", "").contains(block.language())) {
        continue;
      }
      for (String line : joinContinuations(block.text())) {
        Matcher m = COMMAND.matcher(line.strip());
        if (!m.matches()) {
          continue;
        }
        String args = commandPart(m.group(1));
        if (isTemplate(args) || !Main.commandLine().getSubcommands().containsKey(args.split(" ")[0])) {
          continue;
        }
        checked++;
        try {
          Main.commandLine().parseArgs(tokens(args));
        } catch (CommandLine.ParameterException e) {
          refused.add(block.page() + ": dimstream " + args + " -> " + e.getMessage());
        }
      }
    }
    assertThat(checked).as("command lines found in the docs").isGreaterThan(20);
    assertThat(refused).as("command lines in the docs that the CLI refuses").isEmpty();
  }

  @Test
  void shouldPrintWhatTheCliReferenceShowsForEachQueryExample(@TempDir Path dir) throws Exception {
    Path table = dir.resolve("customers");
    StringWriter log = new StringWriter();
    CommandLine backfill = Main.commandLine();
    backfill.setOut(new PrintWriter(log));
    backfill.setErr(new PrintWriter(log));
    assertThat(backfill.execute("backfill", "--config", "examples/customers.yaml", "--input",
        "examples/customers-changes.jsonl", "--table", table.toString())).as(log.toString()).isZero();

    List<String[]> examples = queryExamples(Files.readString(Path.of("docs/reference/cli.md")));
    assertThat(examples).as("query examples with output in docs/reference/cli.md").hasSizeGreaterThanOrEqualTo(5);
    for (String[] example : examples) {
      String args = example[0].replace("--table data/customers", "--table " + table);
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine query = Main.commandLine();
      query.setOut(new PrintWriter(out));
      query.setErr(new PrintWriter(err));
      int code = query.execute(tokens(args));
      if (example[1].startsWith("error: ")) {
        assertThat(code).as(args + " exits with an error").isNotZero();
        assertThat(err.toString()).as(args).contains(example[1].substring("error: ".length()));
        continue;
      }
      assertThat(code).as(args + "\n" + err).isZero();
      List<String> documented = Arrays.asList(example[1].split("\n"));
      List<String> printed = out.toString().lines().toList();
      if (args.startsWith("query as-of")) {
        // as-of rows stream in table order, which the reference does not promise: compare them as a set
        documented = headerThenSorted(documented);
        printed = headerThenSorted(printed);
      }
      assertShown(args, documented, printed);
    }
  }

  private static List<String> headerThenSorted(List<String> lines) {
    int header = lines.size() > 1 && lines.get(1).startsWith("---") ? 2 : 1;
    List<String> out = new ArrayList<>(lines.subList(0, Math.min(header, lines.size())));
    lines.subList(Math.min(header, lines.size()), lines.size()).stream().sorted().forEach(out::add);
    return out;
  }

  /** The documented lines in order; a "..." line stands for any number of lines the page leaves out. */
  private static void assertShown(String args, List<String> documented, List<String> printed) {
    int at = 0;
    boolean gap = false;
    for (String expected : documented) {
      if (expected.equals("...")) {
        gap = true;
        continue;
      }
      int found = -1;
      for (int i = at; i < printed.size() && (gap || i == at); i++) {
        if (printed.get(i).stripTrailing().equals(expected.stripTrailing())) {
          found = i;
          break;
        }
      }
      assertThat(found).as("dimstream %s printed%n%s%nbut the reference shows the line%n%s", args,
          String.join("\n", printed), expected).isNotNegative();
      at = found + 1;
      gap = false;
    }
    if (!gap) {
      assertThat(printed.subList(at, printed.size())).as("lines dimstream %s printed after the documented ones", args)
          .isEmpty();
    }
  }

  /** Pairs of (arguments, documented output) from the {@code $ dimstream query ...} lines of console blocks. */
  private static List<String[]> queryExamples(String page) {
    List<String[]> out = new ArrayList<>();
    Matcher block = Pattern.compile("(?m)^```console\\n(.*?)^```", Pattern.DOTALL).matcher(page);
    while (block.find()) {
      String[] lines = block.group(1).split("\n");
      for (int i = 0; i < lines.length; i++) {
        if (!lines[i].startsWith("$ dimstream query ")) {
          continue;
        }
        StringBuilder output = new StringBuilder();
        int j = i + 1;
        for (; j < lines.length && !lines[j].startsWith("$ ") && !lines[j].isEmpty(); j++) {
          output.append(lines[j]).append('\n');
        }
        out.add(new String[] {lines[i].substring("$ dimstream ".length()), output.toString().stripTrailing()});
      }
    }
    return out;
  }
}
