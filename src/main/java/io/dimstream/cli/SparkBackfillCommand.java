package io.dimstream.cli;

import io.dimstream.storage.TableLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dimstream spark-backfill}: {@code backfill} as a Spark job ({@code spark/}), submitted through Spark's own
 * {@code SparkSubmit} from the Maven artifacts, to {@code local[N]} or a cluster's master.
 */
@Command(name = "spark-backfill", mixinStandardHelpOptions = true,
    description = {"Builds a dimension table as `backfill` does, as a Spark job: on local[N] or a cluster (standalone,",
        "YARN, Kubernetes); input is any path Spark reads (a file, a directory or a glob of JSON lines or CSV).",
        "Same decoding, dead letters, lateness rule, fold and table as `backfill` of the files in path order."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:the table was written", "1:bad input, table or job", "2:bad spec or usage"})
final class SparkBackfillCommand implements Callable<Integer> {

  @Option(names = "--master", required = true, description = "Spark's master: local[N], spark://host:port, yarn or "
      + "k8s://https://host:port.")
  String master;

  @Option(names = "--config", required = true, description = "The dimension spec (YAML).")
  Path config;

  @Option(names = "--input", required = true, description = "Change events: a file, a directory or a glob of .jsonl "
      + "or .csv files, on any file system Spark reads (local, s3a://, abfss://, hdfs://); arrival order is by path, "
      + "then place in the file.")
  String input;

  @Option(names = "--table", required = true, converter = TableLocationConverter.class, description = "The Delta "
      + "table to create (must not hold data yet): a directory every executor reaches, s3://bucket/prefix or "
      + "az://container/prefix.")
  TableLocation table;

  @Option(names = "--dlq", description = "Write rejected records to this file (any path Spark writes) as JSON lines "
      + "{reason, detail, record}, in input order.")
  String dlq;

  @Option(names = "--conf", description = "A Spark setting, KEY=VALUE (repeatable), e.g. "
      + "spark.executor.memory=4g.")
  Map<String, String> conf;

  @Option(names = "--driver-memory", defaultValue = "2g", description = "The driver JVM's heap (default: "
      + "${DEFAULT-VALUE}); the driver gathers the data files' metadata and the dead letters.")
  String driverMemory;

  @Override
  public Integer call() throws Exception {
    Specs.load(config);
    List<String> sparkOptions = new ArrayList<>(List.of("--master", master));
    if (conf != null) {
      conf.forEach((k, v) -> sparkOptions.addAll(List.of("--conf", k + "=" + v)));
    }
    List<String> jobArgs = new ArrayList<>(List.of("--config", config.toAbsolutePath().toString(), "--input", input,
        "--table", table.toString()));
    if (dlq != null) {
      jobArgs.addAll(List.of("--dlq", dlq));
    }
    return SparkSubmitLauncher.fromCheckout().submit(sparkOptions, jobArgs, driverMemory);
  }
}
