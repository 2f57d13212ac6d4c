package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream demo --enrich examples/orders-enrich.yaml --facts examples/orders.jsonl}: the orders, sent before
 * the customers' changes, end equal to the batch join, with corrections along the way.
 */
class DemoEnrichIT {
  @TempDir
  Path dir;

  @Test
  void shouldEnrichTheExampleOrdersAndShowTheCorrections() {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int code;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      System.setOut(out);
      code = Main.commandLine().execute("demo", "--exit-when-done", "--data-dir", dir.resolve("data").toString(),
          "--table", dir.resolve("table").toString(), "--http-port", "0", "--enrich", "examples/orders-enrich.yaml",
          "--facts", "examples/orders.jsonl");
    } finally {
      System.setOut(original);
    }
    String text = captured.toString(StandardCharsets.UTF_8);
    original.print(text);

    assertThat(code).as(text).isZero();
    assertThat(figure(text, "facts")).isEqualTo(5);
    assertThat(figure(text, "facts with a version")).isEqualTo(4); // customer 9999 is not in the example
    assertThat(figure(text, "corrections")).isPositive();
    assertThat(text).contains("equal to the batch join yes").contains("a corrected record: ");
  }

  private static long figure(String out, String label) {
    Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(label) + "\\s+([\\d,]+)").matcher(out);
    assertThat(m.find()).as("the summary shows '%s':%n%s", label, out).isTrue();
    return Long.parseLong(m.group(1).replace(",", ""));
  }
}
