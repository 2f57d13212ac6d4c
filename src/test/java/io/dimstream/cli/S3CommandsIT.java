package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.query.SequenceTimes;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.S3ProxyServer;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line on a table in S3 (s3proxy on 127.0.0.1): {@code backfill} writes it (the endpoint from the spec's
 * {@code service.storage}), {@code query} reads it (key history, as-of, changes) and {@code table optimize|vacuum|verify} maintain it (the
 * endpoint from the AWS SDK's environment), and the rows equal the reference fold of the input.
 */
class S3CommandsIT {
  static S3ProxyServer s3;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.inMemory();
    s3.createBucket("dims");
    System.setProperty("aws.endpointUrlS3", s3.endpoint());
    System.setProperty("aws.region", "us-east-1");
  }

  @AfterAll
  static void stop() throws Exception {
    System.clearProperty("aws.endpointUrlS3");
    System.clearProperty("aws.region");
    s3.close();
  }

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void shouldBackfillQueryAndMaintainATableInS3EqualToTheReferenceFold() throws Exception {
    Path config = dir.resolve("customers.yaml");
    Files.writeString(config, ReplayCommandTest.SPEC_YAML + "service:\n  storage: {s3: {endpoint: \""
        + s3.endpoint() + "\", region: us-east-1}}\n");
    DimensionSpec spec = DimensionSpecLoader.load(config);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 5L).keys(300).events(3_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path input = dir.resolve("changes.jsonl");
    Files.write(input, stream.jsonLines());
    String table = "s3://dims/warehouse/customers";

    Run backfill = run("backfill", "--config", config.toString(), "--input", input.toString(), "--table", table);
    assertThat(backfill.code()).as(backfill.err()).isZero();
    assertThat(Path.of("s3:")).as("nothing was written to a local directory").doesNotExist();

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    DeltaTable t = DeltaTable.open(s3.store("dims", "warehouse/customers"));
    try (Stream<Version> rows = t.latest().scan()) {
      assertThat(EndToEndIT.sorted(rows.toList())).containsExactlyElementsOf(expected);
    }

    Version sample = expected.get(expected.size() / 2);
    Object key = sample.key().values().get(0);
    Run history = run("query", "history", "--table", table, "--key", String.valueOf(key), "--format", "json");
    assertThat(history.code()).as(history.err()).isZero();
    long versionsOfKey = expected.stream().filter(v -> v.key().equals(sample.key())).count();
    assertThat(history.out().lines().filter(l -> !l.isBlank())).hasSize((int) versionsOfKey);

    // as-of and changes, at and around the time the sample version opened
    long at = sample.validFrom().first();
    Run asOf = run("query", "as-of", "--table", table, "--at", SequenceTimes.format(spec, at), "--format", "json");
    assertThat(asOf.code()).as(asOf.err()).isZero();
    assertThat(asOf.out().lines().filter(l -> !l.isBlank()))
        .hasSize((int) expected.stream().filter(v -> v.validAt(at)).count())
        .anySatisfy(l -> assertThat(l).contains(String.valueOf(key)));
    long from = at - 3_600_000_000L;
    long to = at + 3_600_000_000L;
    Set<String> points = new HashSet<>();
    for (Version v : expected) {
      for (io.dimstream.model.Sequence s : new io.dimstream.model.Sequence[] {v.validFrom(), v.validTo()}) {
        if (s != null && s.first() >= from && s.first() < to) {
          points.add(v.key() + "@" + s.first());
        }
      }
    }
    Run changes = run("query", "changes", "--table", table, "--from", SequenceTimes.format(spec, from), "--to",
        SequenceTimes.format(spec, to), "--format", "json");
    assertThat(changes.code()).as(changes.err()).isZero();
    assertThat(changes.out().lines().filter(l -> !l.isBlank())).as("one change per key and time a version opened or "
        + "closed at").hasSize(points.size()).isNotEmpty();

    Run optimize = run("table", "optimize", "--table", table);
    assertThat(optimize.code()).as(optimize.err()).isZero();
    Run vacuum = run("table", "vacuum", "--table", table, "--retain", "0s");
    assertThat(vacuum.code()).as(vacuum.err()).isZero();
    Run verify = run("table", "verify", "--table", table);
    assertThat(verify.code()).as(verify.out() + verify.err()).isZero();

    try (Stream<Version> rows = DeltaTable.open(s3.store("dims", "warehouse/customers")).latest().scan()) {
      assertThat(EndToEndIT.sorted(rows.toList())).as("maintenance changed no row").containsExactlyElementsOf(expected);
    }
  }
}
