package io.dimstream.query.http;

import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static io.dimstream.query.QueryFixtures.customer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.dimstream.model.Version;
import io.dimstream.query.DeltaVersionTable;
import io.dimstream.query.QueryTables;
import io.dimstream.query.TableLiveQueries;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeline page in headless Chromium against a real server over a Delta table written here: the bars of a known
 * key render with their validity bounds and the table's commits are listed. Needs the Debian {@code chromium}
 * package; fails (never skips) without it.
 */
class TimelinePageIT {
  private static final List<Version> KEY_42 = List.of(
      customer(42, "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "Paris", "gold", "Ann"),
      customer(42, "2026-01-05T00:00:00Z", "2026-01-09T00:00:00Z", "Lyon", "gold", "Ann"),
      customer(42, "2026-01-12T00:00:00Z", null, "Lyon", "silver", "Ann B"));

  @TempDir
  Path dir;

  @Test
  void shouldRenderTheBarsOfAKnownKeyAndTheLatestCommits() throws Exception {
    String chromium = chromium();
    DeltaVersionTable table = new DeltaVersionTable(QueryTables.write(dir.resolve("customers"), CUSTOMERS,
        KEY_42.subList(0, 2), List.of(KEY_42.get(2), customer(7, "2026-01-02T00:00:00Z", null, "Nice", "gold", "B"))));
    try (QueryServer server = QueryServer.builder().bind("127.0.0.1", 0)
        .dimension(new DimensionEndpoint(new TableLiveQueries(table), table::commits, ServiceMetrics.NONE))
        .build().start()) {
      String dom = dumpDom(chromium, "http://127.0.0.1:" + server.port() + "/?key=42");
      List<String> bars = new ArrayList<>();
      Matcher m = Pattern.compile("<div[^>]*class=\"bar[^\"]*\"[^>]*>").matcher(dom);
      while (m.find()) {
        bars.add(m.group());
      }
      assertThat(bars).as(dom).hasSize(3);
      assertThat(bars.get(0)).contains("data-valid-from=\"2026-01-01T00:00:00Z\"")
          .contains("data-valid-to=\"2026-01-05T00:00:00Z\"").contains("data-changed=\"\"");
      assertThat(bars.get(1)).contains("data-valid-from=\"2026-01-05T00:00:00Z\"")
          .contains("data-valid-to=\"2026-01-09T00:00:00Z\"").contains("data-changed=\"city\"");
      assertThat(bars.get(2)).contains("data-valid-from=\"2026-01-12T00:00:00Z\"").contains("data-valid-to=\"\"")
          .contains("data-current=\"true\"").contains("class=\"bar open\"");
      assertThat(dom).contains("3 versions");
      assertThat(dom).contains("class=\"commit\" data-version=\"2\"").contains("class=\"commit\" data-version=\"0\"");
    }
  }

  /** The chromium binary; fails with the install command when it is missing (CI must install it). */
  static String chromium() {
    for (String name : List.of("chromium", "chromium-browser")) {
      for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
        Path p = Path.of(d, name);
        if (Files.isExecutable(p)) {
          return p.toString();
        }
      }
    }
    return fail("chromium is not installed (CI=" + System.getenv("CI") + "); the timeline page test needs it: "
        + "apt-get install -y --no-install-recommends chromium");
  }

  private String dumpDom(String chromium, String url) throws Exception {
    Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
    Path out = dir.resolve("dom.html");
    Path err = dir.resolve("chromium.log");
    Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--virtual-time-budget=5000", "--dump-dom", url)
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("chromium did not finish within 90 s: " + Files.readString(err));
    }
    String dom = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(Files.readString(err)).isZero();
    return dom;
  }
}
