package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.history.Scd2Fold;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream spark-backfill} against a real Spark standalone cluster: a Master and two Workers, each a process
 * of its own, the job's executors launched by the workers in JVMs of their own with nothing of dimstream installed.
 */
class SparkStandaloneClusterIT {
  @TempDir
  Path dir;

  @Test
  void shouldWriteTheReferenceFoldFromExecutorsOnTwoWorkers() throws Exception {
    Path yaml = ExampleSpec.write(dir, "customers_spark_cluster", "customers_spark_cluster", dir.resolve("data"), "",
        "");
    DimensionSpec spec = DimensionSpecLoader.load(yaml);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    Path input = SparkJobBackfillIT.writeParts(
        Files.readAllLines(EndToEndIT.writeInput(stream, dir.resolve("generated.jsonl"))), dir.resolve("input"), 4);
    Path table = dir.resolve("table");
    Path dlq = dir.resolve("dlq.jsonl");

    try (SparkStandaloneCluster cluster = SparkStandaloneCluster.start(dir.resolve("cluster"), 2)) {
      assertThat(SparkJobBackfillIT.sparkBackfill(yaml, input.toString(), table, dlq, cluster.url(), "--conf",
          "spark.executor.memory=768m")).as("spark-backfill exit code; logs in %s", dir.resolve("cluster")).isZero();
      for (Path work : cluster.workDirs()) {
        List<Path> logs = executorLogs(work);
        assertThat(logs).as("executors launched by the worker in %s", work).isNotEmpty();
        StringBuilder all = new StringBuilder();
        for (Path log : logs) {
          all.append(Files.readString(log));
        }
        assertThat(all).as("tasks run by the executors of the worker in %s", work).contains("Finished task");
      }
    }
    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec))).as("the table, read by Delta Kernel")
        .containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
    assertThat(Files.readAllLines(dlq)).hasSize(2).allMatch(l -> l.contains("\"malformed-json\"")
        || l.contains("\"missing-key\""));
  }

  /** The stderr files of the executors a worker ran: {@code <work>/app-*}/{@code <id>}/stderr. */
  private static List<Path> executorLogs(Path work) throws Exception {
    try (Stream<Path> files = Files.walk(work)) {
      return files.filter(p -> p.getFileName().toString().equals("stderr")
          && p.getParent().getParent().getFileName().toString().startsWith("app-")).toList();
    }
  }
}
