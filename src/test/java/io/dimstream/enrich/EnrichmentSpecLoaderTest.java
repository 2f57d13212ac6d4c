package io.dimstream.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.spec.InputFormat;
import io.dimstream.spec.OutputFormat;
import io.dimstream.spec.SpecException;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.LogicalTypes;
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

  @Test
  void shouldGiveEnrichedAvroRecordsTheOutputColumnsWithTheirNullabilityAndLogicalTypes() throws IOException {
    EnrichmentSpec spec = load(withRegistry(CUSTOMERS), ORDERS.replace("amount: double", "amount: \"decimal(10,2)\", "
        + "shipped_on: date") + """
        attributes: [{city: customer_city}, tier]
        version_id: true
        valid_from: customer_valid_from
        output: {format: avro}
        """);

    assertThat(spec.outputFormat()).isEqualTo(OutputFormat.AVRO);
    Schema schema = spec.enrichedAvroSchema();
    assertThat(schema.getName()).isEqualTo("orders_enriched_enriched");
    assertThat(schema.getFields()).extracting(Schema.Field::name).containsExactly("order_id", "customer_id",
        "ordered_at", "amount", "shipped_on", "customer_city", "tier", "customers_found", "customer_sk",
        "customer_valid_from", "revision");
    // never null: the fact's key, time and join columns, the found flag and the revision
    assertThat(schema.getField("order_id").schema().getType()).isEqualTo(Schema.Type.LONG);
    assertThat(schema.getField("customer_id").schema().getType()).isEqualTo(Schema.Type.LONG);
    assertThat(schema.getField("ordered_at").schema().getLogicalType()).isEqualTo(LogicalTypes.timestampMicros());
    assertThat(schema.getField("customers_found").schema().getType()).isEqualTo(Schema.Type.BOOLEAN);
    assertThat(schema.getField("revision").schema().getType()).isEqualTo(Schema.Type.LONG);
    // the rest may be null (no version at the fact's time, a fact without the value), with default null so a
    // schema with one more attribute reads the records of the one before
    for (String nullable : List.of("amount", "shipped_on", "customer_city", "tier", "customer_sk",
        "customer_valid_from")) {
      Schema.Field f = schema.getField(nullable);
      assertThat(f.schema().getType()).as(nullable).isEqualTo(Schema.Type.UNION);
      assertThat(f.schema().getTypes().get(0).getType()).as(nullable).isEqualTo(Schema.Type.NULL);
      assertThat(f.defaultVal()).as(nullable).isEqualTo(org.apache.avro.JsonProperties.NULL_VALUE);
    }
    assertThat(schema.getField("amount").schema().getTypes().get(1).getLogicalType())
        .isEqualTo(LogicalTypes.decimal(10, 2));
    assertThat(schema.getField("shipped_on").schema().getTypes().get(1).getLogicalType())
        .isEqualTo(LogicalTypes.date());
    assertThat(schema.getField("customer_sk").schema().getTypes().get(1).getType()).isEqualTo(Schema.Type.LONG);
    assertThat(schema.getField("customer_valid_from").schema().getTypes().get(1).getLogicalType())
        .as("valid_from has the type of the dimension's sequence column").isEqualTo(LogicalTypes.timestampMicros());
  }

  @Test
  void shouldDeriveTheEnrichedAvroSchemaTheDocsShowForTheExample() throws IOException {
    Files.copy(Path.of("examples/customers.yaml"), dir.resolve("customers.yaml"));
    Path file = dir.resolve("orders-enrich.yaml");
    Files.writeString(file, Files.readString(Path.of("examples/orders-enrich.yaml"))
        + "\nversion_id: customer_sk\nvalid_from: customer_valid_from\n");

    String docs = Files.readString(Path.of("docs/enrichment.md"));
    String shown = docs.substring(docs.indexOf("{\"type\": \"record\", \"name\": \"orders_enriched_enriched\""));
    shown = shown.substring(0, shown.indexOf("```"));
    assertThat(EnrichmentSpecLoader.load(file).enrichedAvroSchema()).isEqualTo(new Schema.Parser().parse(shown));
  }

  @Test
  void shouldWriteEnrichedAvroByDefaultExactlyWhenTheDimensionWritesItsVersionsInTheWireFormat() throws IOException {
    String orders = ORDERS + "attributes: [tier]\n";
    assertThat(load(orders).outputFormat()).as("no registry").isEqualTo(OutputFormat.JSON);
    assertThat(load(withRegistry(CUSTOMERS), orders).outputFormat()).as("a registry, versions in JSON")
        .isEqualTo(OutputFormat.JSON);
    assertThat(load(withRegistry(CUSTOMERS) + "versions_format: avro\n", orders).outputFormat())
        .as("versions in the wire format").isEqualTo(OutputFormat.AVRO);
    assertThat(load(withRegistry(CUSTOMERS) + "versions_format: avro\n", orders + "output: {format: json}\n")
        .outputFormat()).as("JSON asked for").isEqualTo(OutputFormat.JSON);
  }

  @Test
  void shouldRefuseAvroOutputWithAColumnThatIsNoAvroName() throws IOException {
    assertThatThrownBy(() -> load(withRegistry(CUSTOMERS), ORDERS
        + "attributes: [{tier: customer-tier}]\noutput: {format: avro}\n"))
        .isInstanceOf(SpecException.class).hasMessageContaining("field 'output.format'")
        .hasMessageContaining("customer-tier").hasMessageContaining("Fix: rename the column");
    assertThat(load(withRegistry(CUSTOMERS), ORDERS + "attributes: [{tier: customer-tier}]\n").outputFormat())
        .as("JSON takes any name").isEqualTo(OutputFormat.JSON);
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
        bad("avro output without a schema registry", ORDERS + "attributes: [tier]\noutput: {format: avro}\n",
            "output.format", "the dimension 'customers' names none",
            "add schema_registry: {url: ...} to the dimension's spec, or write output.format: json"),
        bad("unknown output format", ORDERS + "attributes: [tier]\noutput: {format: protobuf}\n", "output.format",
            "unknown format 'protobuf'", "use json or avro"),
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
    return load(CUSTOMERS, yaml);
  }

  private EnrichmentSpec load(String customers, String yaml) throws IOException {
    Files.writeString(dir.resolve("customers.yaml"), customers);
    Path file = dir.resolve("orders.yaml");
    Files.writeString(file, yaml);
    return EnrichmentSpecLoader.load(file);
  }

  private static String withRegistry(String customers) {
    return customers + "format: avro\nschema_registry: {url: http://127.0.0.1:8081}\n";
  }

  private static Arguments bad(String name, String yaml, String field, String problem, String fix) {
    return Arguments.of(Named.of(name, yaml), field, problem, fix);
  }
}
