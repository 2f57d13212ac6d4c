package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A table location with a scheme no store supports, or a malformed URI, is a usage error naming the supported forms
 * on every command that takes {@code --table}; it never becomes a local directory such as {@code ./s3:}.
 */
class TableUriCliTest {
  @TempDir
  Path dir;

  private int run(StringWriter err, String... args) {
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    return cl.execute(args);
  }

  @Test
  void shouldRefuseAnUnsupportedOrMalformedTableUriOnBackfillAndWriteNothingLocally() throws Exception {
    Path config = dir.resolve("customers.yaml");
    Files.writeString(config, ReplayCommandTest.SPEC_YAML);
    Path input = dir.resolve("changes.jsonl");
    Files.writeString(input, "{\"customer_id\":1,\"name\":\"Ann\",\"city\":\"Oslo\",\"tier\":\"gold\","
        + "\"updated_at\":\"2026-01-01T06:00:00Z\"}\n");
    for (String table : new String[] {"gs://dims/customers", "s3:/dims/customers", "hdfs://nn/dims"}) {
      StringWriter err = new StringWriter();
      int code = run(err, "backfill", "--config", config.toString(), "--input", input.toString(), "--table", table);
      assertThat(code).as(err.toString()).isEqualTo(2);
      assertThat(err.toString()).contains(table).contains("s3://bucket/prefix").contains("a local path");
    }
    assertThat(Path.of("s3:")).doesNotExist();
    assertThat(Path.of("gs:")).doesNotExist();
    assertThat(Path.of("hdfs:")).doesNotExist();
  }

  @Test
  void shouldRefuseAnUnsupportedSchemeOnQueryAndTableCommands() {
    String[][] commands = {
        {"query", "history", "--table", "gs://dims/customers", "--key", "1"},
        {"query", "as-of", "--table", "wasbs://dims@acct.blob.core.windows.net/customers", "--at",
            "2026-01-01T00:00:00Z"},
        {"table", "verify", "--table", "abfss://dims@acct.blob.core.windows.net/customers"},
        {"table", "history", "--table", "s3:dims"},
    };
    for (String[] args : commands) {
      StringWriter err = new StringWriter();
      assertThat(run(err, args)).as(err.toString()).isEqualTo(2);
      assertThat(err.toString()).contains("s3://bucket/prefix");
    }
  }
}
