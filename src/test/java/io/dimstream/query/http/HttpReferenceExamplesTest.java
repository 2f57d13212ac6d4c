package io.dimstream.query.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.cli.Main;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.HistoryQueries;
import io.dimstream.query.TimeTravel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The curl examples of the HTTP reference, asked of a real endpoint serving the table built from the bundled
 * example: each answers with the status and the body the page shows ("..." in a shown body stands for text the page
 * leaves out).
 */
class HttpReferenceExamplesTest {
  private static final Pattern CURL = Pattern.compile("^\\$ curl -s(i?) '?localhost:8080(/[^' ]*)'?$");

  @Test
  void shouldAnswerEveryCurlExampleOfTheHttpReferenceAsShown(@TempDir Path dir) throws Exception {
    Path table = dir.resolve("customers");
    StringWriter log = new StringWriter();
    CommandLine backfill = Main.commandLine();
    backfill.setOut(new PrintWriter(log));
    backfill.setErr(new PrintWriter(log));
    assertThat(backfill.execute("backfill", "--config", "examples/customers.yaml", "--input",
        "examples/customers-changes.jsonl", "--table", table.toString())).as(log.toString()).isZero();
    HistoryQueries queries = new HistoryQueries(DeltaVersionTable.open(table).at(new TimeTravel.Latest()));
    List<String[]> examples = examples(Files.readString(Path.of("docs/reference/http.md")));
    assertThat(examples).as("curl examples in docs/reference/http.md").hasSizeGreaterThanOrEqualTo(5);

    try (QueryServer server = QueryServer.builder().bind("127.0.0.1", 0)
        .dimension(new DimensionEndpoint(new ListLiveQueries(queries), DimensionEndpoint.CommitHistory.NONE,
            ServiceMetrics.NONE))
        .build().start()) {
      HttpClient http = HttpClient.newHttpClient();
      for (String[] example : examples) {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + server.port() + example[1])).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        String shown = example[2];
        if (example[0].equals("i")) {
          String statusLine = shown.lines().findFirst().orElseThrow();
          assertThat(statusLine).as(example[1]).startsWith("HTTP/1.1 " + r.statusCode() + " ");
          shown = shown.substring(shown.indexOf("\n\n") + 2);
        } else {
          assertThat(r.statusCode()).as(example[1]).isEqualTo(200);
        }
        if (example[1].equals("/metrics")) {
          continue; // counters of a running service; the names are checked by the metrics tests
        }
        assertThat(r.body()).as(example[1]).matches(pattern(shown));
      }
    }
  }

  /** The shown body with "..." standing for any text (and "<count>" for a number). */
  private static String pattern(String shown) {
    StringBuilder p = new StringBuilder("(?s)");
    for (String part : shown.strip().split("\\.\\.\\.", -1)) {
      if (p.length() > 4) {
        p.append(".*");
      }
      p.append(Pattern.quote(part));
    }
    return p.toString();
  }

  /** (flag i or empty, path and query, the shown answer) of each {@code $ curl -s[i] localhost:8080/...} line. */
  private static List<String[]> examples(String page) {
    List<String[]> out = new ArrayList<>();
    Matcher block = Pattern.compile("(?m)^```console\\n(.*?)^```", Pattern.DOTALL).matcher(page);
    while (block.find()) {
      String[] lines = block.group(1).split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        Matcher m = CURL.matcher(lines[i]);
        if (!m.matches()) {
          continue;
        }
        StringBuilder answer = new StringBuilder();
        for (int j = i + 1; j < lines.length && !lines[j].startsWith("$ "); j++) {
          answer.append(lines[j]).append('\n');
        }
        out.add(new String[] {m.group(1), m.group(2), answer.toString().strip()});
      }
    }
    return out;
  }
}
