package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.Fact;
import io.dimstream.history.Scd2Fold;
import io.dimstream.service.CatchUp;
import io.dimstream.service.KafkaClients;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An enrichment of one of several dimensions in one {@code dimstream run --config <directory>}: the directory holds
 * two dimension specs and an enrichment spec of one of them, and the process runs all three. Orders sent between two
 * halves of the customers' changes (the second half with late events crossing the orders' times) end, on the
 * enrichment's output topic, equal to the batch point-in-time join with the final history; the other dimension's
 * table is the fold of its own changes, and {@code /metrics} counts the enrichment under its dimension.
 */
class HostedEnrichmentIT {
  private static final Pattern ENDPOINT = Pattern.compile("Query endpoint on http://127\\.0\\.0\\.1:(\\d+)/ for");

  @TempDir
  Path dir;

  @Test
  void shouldRunAnEnrichmentOfOneOfSeveralDimensions() throws Exception {
    Path specs = Files.createDirectories(dir.resolve("dimensions"));
    Path data = dir.resolve("data");
    DimensionSpec customers = DimensionSpecLoader.load(write(specs, "hosted_customers", data));
    DimensionSpec accounts = DimensionSpecLoader.load(write(specs, "hosted_accounts", data));
    EnrichmentSpec orders = EnrichmentIT.ordersSpec(specs, "hosted_orders", "hosted_customers.yaml");

    ChangeStreams.GeneratedStream stream = ChangeStreams.random(customers, 20_261_207L).keys(40).events(600)
        .late(0.2).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    ChangeStreams.GeneratedStream other = ChangeStreams.random(accounts, 7L).keys(30).events(300).late(0.1)
        .duplicates(0.05).deletes(0.05).generate();
    int half = stream.jsonLines().size() / 2;
    List<Fact> facts = EnrichmentIT.orders(stream.events(), 200);
    Path factsFile = EnrichmentIT.writeOrders(orders, facts, dir.resolve("orders.jsonl"));
    EnrichedRows rows = new EnrichedRows(orders);
    Map<String, String> expected = new HashMap<>(); // compared as text: numbers read back are int nodes
    BatchEnrichment.join(orders, facts, Scd2Fold.fold(customers, stream.events()))
        .forEach((k, e) -> expected.put(k, EnrichmentIT.withoutRevision(rows.row(e)).toString()));

    Path log = TakeoverIT.log("hosted-enrichment");
    try (ServiceProcess process = ServiceProcess.start(log, "--config", specs.toString())) {
      await("both dimensions to start").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
          .failFast("the service died; see " + log, () -> !process.isAlive())
          .until(() -> Files.readString(log).contains("dimstream running 2 of 2"));
      Map<String, Object> kafka = KafkaClients.properties(customers, null);
      produce(customers, stream.jsonLines().subList(0, half), "first", kafka);
      assertThat(FactsProducer.produce(orders, factsFile, kafka)).isEqualTo(facts.size());
      produce(customers, stream.jsonLines().subList(half, stream.jsonLines().size()), "second", kafka);
      produce(accounts, other.jsonLines(), "accounts", kafka);

      Map<String, String> last = new HashMap<>();
      boolean joined = CatchUp.await(() -> {
        last.clear();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(kafka, orders.outputTopic(), true).kept()) {
          last.put(new String(r.key(), StandardCharsets.UTF_8),
              EnrichmentIT.withoutRevision((ObjectNode) EnrichmentIT.read(r.value())).toString());
        }
        return last.equals(expected);
      }, Duration.ofMinutes(3));
      Map<String, String> wrong = new TreeMap<>();
      expected.forEach((k, want) -> {
        if (!want.equals(last.get(k))) {
          wrong.put(k, "want " + want + " got " + last.get(k));
        }
      });
      assertThat(wrong).as("orders whose last enriched record differs from the batch join").isEmpty();
      assertThat(joined).isTrue();

      String metrics = get(port(log), "/metrics");
      assertThat(metrics).contains("dimstream_enrichment_facts_total{dimension=\"hosted_customers\","
          + "enrichment=\"hosted_orders\",outcome=\"enriched\"} " + facts.size());
      Path accountsTable = data.resolve("tables").resolve(accounts.name());
      TakeoverIT.awaitCaughtUp(process, accounts, log, () -> DeltaTable.open(accountsTable));
      assertThat(process.stop()).isZero();
      TakeoverIT.assertTableIsTheFoldOf(accounts, other.events(), other.events().size(), accountsTable,
          DeltaTable.open(accountsTable));
    }
  }

  /** The example customers spec as {@code name}, its table under the shared data directory's tables/. */
  private static Path write(Path specs, String name, Path data) throws Exception {
    String yaml = Files.readString(Path.of("examples/customers.yaml"))
        .replaceFirst("(?m)^name: customers", "name: " + name)
        + "\nservice:\n  data_dir: " + data + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n";
    return Files.writeString(specs.resolve(name + ".yaml"), yaml);
  }

  private void produce(DimensionSpec spec, List<String> lines, String file, Map<String, Object> kafka)
      throws Exception {
    Path input = Files.write(dir.resolve(file + ".jsonl"), lines, StandardCharsets.UTF_8);
    ProduceCommand.produce(spec, input, kafka);
  }

  private static int port(Path log) throws Exception {
    Matcher m = ENDPOINT.matcher(Files.readString(log));
    assertThat(m.find()).as("the endpoint's log line").isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static String get(int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }
}
