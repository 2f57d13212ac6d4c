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
 * Which enrichments {@code run} with several dimensions runs, and with which dimension: every {@code --enrich}, and
 * the enrichment specs among the {@code --config} files and directories; one that joins with a dimension the command
 * does not run is refused before anything starts, naming the file and the fix.
 */
class SeveralDimensionsEnrichmentTest {
  @TempDir
  Path dir;

  @Test
  void shouldTakeTheEnrichmentSpecsOfADirectoryAsEnrichmentsNotAsDimensions() throws Exception {
    Path specs = Files.createDirectories(dir.resolve("specs"));
    dimension(specs, "shop_customers");
    dimension(specs, "shop_accounts");
    Path orders = enrichment(specs, "shop_orders", "shop_customers.yaml");
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs("--config", specs.toString());

    assertThat(run.specFiles()).containsExactly(specs.resolve("shop_accounts.yaml"),
        specs.resolve("shop_customers.yaml"));
    assertThat(run.enrichmentFiles()).containsExactly(orders);
    assertThat(Specs.loadEnrichments(run.enrichmentFiles(), java.util.List.of(
        io.dimstream.spec.DimensionSpecLoader.load(specs.resolve("shop_customers.yaml")))))
        .containsOnlyKeys("shop_customers");
  }

  @Test
  void shouldRefuseAnEnrichmentOfADimensionTheCommandDoesNotRun() throws Exception {
    Path specs = Files.createDirectories(dir.resolve("specs"));
    dimension(specs, "shop_customers");
    dimension(specs, "shop_accounts");
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    dimension(elsewhere, "shop_products");
    Path orders = enrichment(elsewhere, "shop_orders", "shop_products.yaml");
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err, true));

    int code = cl.execute("run", "--config", specs.toString(), "--enrich", orders.toString());

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains(orders.toString()).contains("'shop_products'")
        .contains("[shop_accounts, shop_customers]").contains("Fix:");
    assertThat(dir.resolve("data")).as("nothing started").doesNotExist();
  }

  private Path dimension(Path in, String name) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        + "\nservice:\n  data_dir: " + dir.resolve("data") + "\n  http: {port: 0}\n";
    return Files.writeString(in.resolve(name + ".yaml"), yaml);
  }

  private static Path enrichment(Path in, String name, String dimensionFile) throws Exception {
    EnrichmentIT.ordersSpec(in, name, dimensionFile);
    return in.resolve(name + ".yaml");
  }
}
