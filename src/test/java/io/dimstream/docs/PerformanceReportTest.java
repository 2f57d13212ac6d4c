package io.dimstream.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The results of docs/performance.md are runs': every figure of its generated section is a line of the results
 * file kept beside it, each run's commit and date are the file's, and every plot it shows exists.
 */
class PerformanceReportTest {
  private static final Path PAGE = Path.of("docs/performance.md");
  private static final Path RESULTS = Path.of("docs/performance/results.jsonl");
  private static final String BEGIN = "<!-- bench-report:begin -->";
  private static final String END = "<!-- bench-report:end -->";

  @Test
  void shouldShowOnlyFiguresTheKeptResultsFileHolds() throws Exception {
    String section = section();
    ObjectMapper json = new ObjectMapper();
    Set<String> printed = new HashSet<>();
    List<JsonNode> machines = new ArrayList<>();
    for (String line : Files.readAllLines(RESULTS)) {
      JsonNode n = json.readTree(line);
      printed.add(n.path("bench").asText() + "|" + n.path("metric").asText() + "|" + n.path("value").asText() + "|"
          + n.path("unit").asText());
      if (n.path("bench").asText().equals("machine") && n.path("metric").asText().equals("cores")) {
        machines.add(n);
      }
    }
    assertThat(machines).as("the machine lines of " + RESULTS).isNotEmpty();

    List<String> rows = new ArrayList<>();
    Set<String> s3Values = new HashSet<>();
    for (String line : Files.readAllLines(RESULTS)) {
      JsonNode n = json.readTree(line);
      if (n.path("bench").asText().equals("s3")) {
        s3Values.add(n.path("value").asText());
      }
    }
    String table = "";
    for (String line : section.lines().toList()) {
      if (line.startsWith("| bench |") || line.startsWith("| step |")) {
        table = line;
      } else if (line.startsWith("| ") && table.startsWith("| bench |")) {
        String[] cells = line.substring(2).split(" \\| ");
        rows.add(cells[0] + "|" + cells[1] + "|" + cells[2] + "|" + cells[3]);
      } else if (line.startsWith("| ") && table.startsWith("| step |")) {
        // the s3 summary: every number after the step's name is one of the s3 benchmark's figures
        Matcher numbers = Pattern.compile("(?<![\\w.])\\d+(\\.\\d+)?(?![\\w.])")
            .matcher(line.substring(line.indexOf(" | ") + 3));
        while (numbers.find()) {
          assertThat(s3Values).as("a number of the s3 summary of " + PAGE + ": " + line).contains(numbers.group());
        }
      }
    }
    assertThat(rows).as("figures in the results table of " + PAGE).isNotEmpty();
    assertThat(rows).as("figures in " + PAGE + " that " + RESULTS + " does not hold").allMatch(printed::contains);
    for (JsonNode machine : machines) {
      assertThat(section).contains("commit `" + machine.path("params").path("commit").asText() + "`")
          .contains("Run of " + machine.path("params").path("date").asText())
          .contains("Machine: " + machine.path("value").asText() + " cores");
    }
  }

  @Test
  void shouldShowPlotsThatExist() throws Exception {
    Matcher images = Pattern.compile("!\\[[^\\]]*\\]\\(([^)]+\\.svg)\\)").matcher(section());
    int found = 0;
    while (images.find()) {
      Path svg = PAGE.getParent().resolve(images.group(1));
      assertThat(svg).exists();
      assertThat(Files.readString(svg)).startsWith("<svg ");
      found++;
    }
    assertThat(found).as("plots in the results section").isPositive();
  }

  private static String section() throws Exception {
    String page = Files.readString(PAGE);
    int b = page.indexOf(BEGIN);
    int e = page.indexOf(END);
    assertThat(b).as(PAGE + " marks its generated section with " + BEGIN).isNotNegative();
    assertThat(e).as(PAGE + " ends its generated section with " + END).isGreaterThan(b);
    return page.substring(b + BEGIN.length(), e);
  }
}
