package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.spec.InputFormat;
import io.dimstream.spec.SpecException;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EnrichmentSpecLoaderTest {
  private static final String CUSTOMERS = """
      name: customers
      columns: {customer_id: long, name: string, city: string, tier: string, updated_at: timestamp, op: string}
      key: [customer_id]
      sequence: [updated_at]
      track: [city, tier]
      delete: {column: op, equals: d}
      output: {version_id: customer_sk}
      """;

  private static final String ORDERS = """
      name: orders_enriched
      dimension: customers.yaml
      facts:
        topic: orders
        columns: {order_id: long, customer_id: long, ordered_at: timestamp, amount: double}
        key: [order_id]
        time: ordered_at
      join: {customer_id: customer_id}
      """;

  @TempDir
  Path dir;

  @Test
  void shouldLoadTheExampleOfTheDocsAsIs() {
    EnrichmentSpec spec = EnrichmentSpecLoader.load(Path.of("examples/orders-enrich.yaml"));

    assertThat(spec.name()).isEqualTo("orders_enriched");
    assertThat(spec.dimension().name()).isEqualTo("customers");
    assertThat(spec.facts().topic()).isEqualTo("orders");
    assertThat(spec.facts().format()).isEqualTo(InputFormat.JSON);
    assertThat(spec.facts().key()).containsExactly("order_id");
    assertThat(spec.facts().time()).isEqualTo("ordered_at");
    assertThat(spec.facts().column("amount").type()).isEqualTo(ColumnType.DOUBLE);
    assertThat(spec.joinColumns()).containsExactly("customer_id");
    assertThat(spec.attributes()).extracting(EnrichmentSpec.Attribute::outputName).containsExactly("city", "tier");
    assertThat(spec.foundColumn()).isEqualTo("customer_found");
    assertThat(spec.outputTopic()).isEqualTo("orders_enriched.enriched");
    assertThat(spec.dlqTopic()).isEqualTo("orders_enriched.dlq");
    assertThat(spec.grace()).isEqualTo(Duration.ZERO);
    assertThat(spec.versionIdColumn()).isNull();
    assertThat(spec.outputColumns()).extracting(c -> c.name()).containsExactly("order_id", "customer_id",
        "ordered_at", "amount", "city", "tier", "customer_found", "revision");
  }

  @Test
  void shouldReadEveryOptionalField() throws IOException {
    EnrichmentSpec spec = load(ORDERS + """
        attributes: [{city: customer_city}, tier]
        version_id: true
        valid_from: customer_valid_from
        grace: 5s
        output: {topic: orders.out, dlq: orders.bad, revision_column: rev}
        """);

    assertThat(spec.attributes()).extracting(EnrichmentSpec.Attribute::dimensionColumn, EnrichmentSpec.Attribute::outputName)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("city", "customer_city"),
            org.assertj.core.groups.Tuple.tuple("tier", "tier"));
    assertThat(spec.foundColumn()).isEqualTo("customers_found");
    assertThat(spec.versionIdColumn()).isEqualTo("customer_sk");
    assertThat(spec.validFromColumn()).isEqualTo("customer_valid_from");
    assertThat(spec.grace()).isEqualTo(Duration.ofSeconds(5));
    assertThat(spec.outputTopic()).isEqualTo("orders.out");
    assertThat(spec.dlqTopic()).isEqualTo("orders.bad");
    assertThat(spec.revisionColumn()).isEqualTo("rev");
  }

  @Test
  void shouldReadAvroFactsWithASchemaOfTheFactColumns() throws IOException {
    EnrichmentSpec spec = load(ORDERS.replace("topic: orders", "topic: orders\n  format: avro") + "attributes: [tier]\n");

    assertThat(spec.facts().format()).isEqualTo(InputFormat.AVRO);
    Schema schema = spec.factsAvroSchema();
    assertThat(schema.getName()).isEqualTo("orders_enriched_fact");
    assertThat(schema.getFields()).extracting(Schema.Field::name)
        .containsExactly("order_id", "customer_id", "ordered_at", "amount");
    // key, join and time columns are never null; the others may be
    assertThat(schema.getField("order_id").schema().getType()).isEqualTo(Schema.Type.LONG);
    assertThat(schema.getField("ordered_at").schema().getLogicalType().getName()).isEqualTo("timestamp-micros");
    assertThat(schema.getField("amount").schema().getTypes()).extracting(Schema::getType)
        .containsExactly(Schema.Type.NULL, Schema.Type.DOUBLE);
  }

  @Test
  void shouldDeriveTheAvroSchemaTheDocsShowForTheExample() throws IOException {
    Files.copy(Path.of("examples/customers.yaml"), dir.resolve("customers.yaml"));
    Path file = dir.resolve("orders-enrich.yaml");
    Files.writeString(file, Files.readString(Path.of("examples/orders-enrich.yaml")).replace("format: json",
        "format: avro"));

    String docs = Files.readString(Path.of("docs/enrichment.md"));
    String shown = docs.substring(docs.indexOf("{\"type\": \"record\", \"name\": \"orders_enriched_fact\""));
    shown = shown.substring(0, shown.indexOf("```"));
    assertThat(EnrichmentSpecLoader.load(file).factsAvroSchema()).isEqualTo(new Schema.Parser().parse(shown));
  }

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        bad("attribute clashing with a fact column", ORDERS.replace("amount: double", "amount: double, city: string")
            + "attributes: [city]\n", "attributes.city", "already a fact column", "rename it"),
        bad("unknown dimension column", ORDERS + "attributes: [country]\n", "attributes.country",
            "has no such column", "[name, city, tier]"),
        bad("the dimension key as an attribute", ORDERS + "attributes: [customer_id]\n", "attributes.customer_id",
            "the dimension's key", "[name, city, tier]"),
        bad("join onto a non-key column", ORDERS.replace("join: {customer_id: customer_id}", "join: {customer_id: city}")
            + "attributes: [tier]\n", "join.customer_id", "not a key column", "[customer_id]"),
        bad("join from an undeclared fact column", ORDERS.replace("join: {customer_id: customer_id}",
            "join: {client: customer_id}") + "attributes: [tier]\n", "join.client", "not a fact column", "facts.columns"),
        bad("join column of another type", ORDERS.replace("customer_id: long, ordered_at", "customer_id: string, ordered_at")
            + "attributes: [tier]\n", "join.customer_id", "is a string but the key column", "declare 'customer_id' as long"),
        bad("fact time not comparable with the sequence", ORDERS.replace("ordered_at: timestamp", "ordered_at: long")
            + "attributes: [tier]\n", "facts.time", "orders its history by 'updated_at', a timestamp", "declare"),
        bad("fact key undeclared", ORDERS.replace("key: [order_id]", "key: [order_no]") + "attributes: [tier]\n",
            "facts.key", "'order_no' is not a fact column", "declare it"),
        bad("found column clashing", ORDERS + "attributes: [tier]\nfound_column: amount\n", "found_column",
            "already taken", "another name"),
        bad("unknown top-level field", ORDERS + "attributes: [tier]\ngrase: 5s\n", "grase", "unknown field", "grace"),
        bad("attributes missing", ORDERS, "attributes", "missing", "[name, city, tier]"),
        bad("bad grace", ORDERS + "attributes: [tier]\ngrace: soon\n", "grace", "cannot read 'soon'", "5s"),
        bad("unknown facts format", ORDERS.replace("topic: orders", "topic: orders\n  format: protobuf")
            + "attributes: [tier]\n", "facts.format", "unknown format 'protobuf'", "use json, avro or debezium-json"),
        bad("output topic read as input", ORDERS + "attributes: [tier]\noutput: {topic: orders}\n", "output.topic",
            "also read as input", "a topic of their own"),
        bad("missing dimension file", ORDERS.replace("customers.yaml", "clients.yaml") + "attributes: [tier]\n",
            "dimension", "no file", "relative to this file"));
  }

  @ParameterizedTest
  @MethodSource("badSpecs")
  void shouldRefuseABadSpecNamingTheFieldAndTheFix(String yaml, String field, String problem, String fix) {
    assertThatThrownBy(() -> load(yaml)).isInstanceOf(SpecException.class)
        .hasMessageContaining("field '" + field + "'").hasMessageContaining(problem).hasMessageContaining("Fix:")
        .hasMessageContaining(fix);
  }

  @Test
  void shouldRefuseADimensionWithoutHistory() throws IOException {
    Files.writeString(dir.resolve("customers.yaml"), CUSTOMERS.replace("track: [city, tier]\n", "") + "history: scd1\n");
    Path file = dir.resolve("orders.yaml");
    Files.writeString(file, ORDERS + "attributes: [tier]\n");

    assertThatThrownBy(() -> EnrichmentSpecLoader.load(file)).isInstanceOf(SpecException.class)
        .hasMessageContaining("history: scd1").hasMessageContaining("Fix: join with a dimension that keeps its history");
  }

  private EnrichmentSpec load(String yaml) throws IOException {
    Files.writeString(dir.resolve("customers.yaml"), CUSTOMERS);
    Path file = dir.resolve("orders.yaml");
    Files.writeString(file, yaml);
    return EnrichmentSpecLoader.load(file);
  }

  private static Arguments bad(String name, String yaml, String field, String problem, String fix) {
    return Arguments.of(Named.of(name, yaml), field, problem, fix);
  }
}
