package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.storage.TableLocation;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DimensionSpecLoaderTest {
  /** The example of the spec reference (docs/reference/spec.md), verbatim. */
  static final String README_EXAMPLE = """
      name: customers
      columns:            # or: schema: schemas/customers.avsc (an Avro record schema)
        customer_id: long
        name: string
        email: string
        city: string
        tier: string
        updated_at: timestamp
        op: string
      key: [customer_id]            # 1..n columns
      sequence: [updated_at]        # 1..n columns, compared left to right
      track: [city, tier]           # optional; or track_except: [..]; default: all attributes
      delete: {column: op, equals: d}
      """;

  @TempDir
  Path dir;

  private Path write(String name, String yaml) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, yaml);
    return file;
  }

  @Test
  void shouldLoadTheReadmeExampleWithEveryDefault() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write("customers.yaml", README_EXAMPLE));

    assertThat(spec.name()).isEqualTo("customers");
    assertThat(spec.columns()).containsExactly(new Column("customer_id", ColumnType.LONG),
        new Column("name", ColumnType.STRING), new Column("email", ColumnType.STRING),
        new Column("city", ColumnType.STRING), new Column("tier", ColumnType.STRING),
        new Column("updated_at", ColumnType.TIMESTAMP), new Column("op", ColumnType.STRING));
    assertThat(spec.key()).containsExactly("customer_id");
    assertThat(spec.sequence()).containsExactly("updated_at");
    assertThat(spec.tracked()).containsExactly("city", "tier");
    assertThat(spec.deleteRule()).isEqualTo(new DeleteRule.ColumnEquals("op", "d"));
    assertThat(spec.attributeColumns()).extracting(Column::name).containsExactly("name", "email", "city", "tier");
    assertThat(spec.inputFormat()).isEqualTo(InputFormat.JSON);
    assertThat(spec.outputFormat()).isEqualTo(OutputFormat.JSON);
    assertThat(spec.topics()).isEqualTo(new Topics("customers.changes", "customers.versions", "customers.dlq"));
    assertThat(spec.latenessHorizon()).isEqualTo(Duration.ofDays(30).toNanos() / 1000);
    assertThat(spec.output()).isEqualTo(new OutputColumns("valid_from", "valid_to", "is_current"));
    assertThat(spec.avroSchema()).isNull();
    ServiceSettings s = spec.service();
    assertThat(s.dataDir()).isEqualTo(Path.of("data"));
    assertThat(s.tablePath()).isEqualTo(TableLocation.local(Path.of("data", "tables", "customers")));
    assertThat(s.kafka()).isEmpty();
    assertThat(s.bootstrapServers()).isNull();
    assertThat(s.compactionInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.compactionMaxRecords()).isEqualTo(50_000);
    assertThat(s.httpHost()).isEqualTo("127.0.0.1");
    assertThat(s.httpPort()).isEqualTo(8080);
    assertThat(s.partitions()).isEqualTo(1);
  }

  /** The YAML blocks of the spec reference, in order. */
  static List<String> readmeSpecBlocks() throws IOException {
    String section = Files.readString(Path.of("docs/reference/spec.md"));
    List<String> blocks = new java.util.ArrayList<>();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("```yaml\n(.*?)```", java.util.regex.Pattern.DOTALL)
        .matcher(section);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  @Test
  void shouldLoadEveryYamlBlockOfTheReadmeSpecSection() throws IOException {
    List<String> blocks = readmeSpecBlocks();

    assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
    assertThat(blocks.get(0)).isEqualTo(README_EXAMPLE);
    for (String yaml : blocks) {
      com.fasterxml.jackson.databind.JsonNode tree = new com.fasterxml.jackson.databind.ObjectMapper(
          new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(yaml);
      // as if the block were a file in examples/, so relative schema paths resolve as in the README
      assertThat(DimensionSpecLoader.parse(tree, Path.of("examples", "readme.yaml")).name()).isNotBlank();
    }
  }

  @Test
  void shouldReadAvroFromARegistryWithoutASchemaFileAndNeverShowItsPassword() throws IOException {
    Path file = dir.resolve("registry.yaml");
    Files.writeString(file, """
        name: customers
        columns: {customer_id: long, updated_at: timestamp, city: string}
        key: [customer_id]
        sequence: [updated_at]
        format: avro
        schema_registry:
          url: https://registry.example:8081/apis/ccompat/v7/
          basic_auth: {user: dimstream, password: s3cret-pw}
          cache_size: 50
        """);

    DimensionSpec spec = DimensionSpecLoader.load(file);

    assertThat(spec.avroSchema()).isNull();
    assertThat(spec.schemaRegistry().url()).hasToString("https://registry.example:8081/apis/ccompat/v7");
    assertThat(spec.schemaRegistry().user()).isEqualTo("dimstream");
    assertThat(spec.schemaRegistry().cacheSize()).isEqualTo(50);
    assertThat(spec.toString()).doesNotContain("s3cret-pw");
  }

  @Test
  void shouldShipTheReadmeExampleAsExamplesCustomersYaml() throws IOException {
    assertThat(Files.readString(Path.of("examples/customers.yaml"))).isEqualTo(README_EXAMPLE);
  }

  @Test
  void shouldReadEveryKeyWhenAllAreGiven() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write("accounts.yaml", """
        name: accounts
        columns:
          region: string
          account_no: int
          batch_date: date
          lsn: long
          balance: decimal(12, 2)
          score: double
          is_deleted: boolean
        key: [region, account_no]
        sequence: [batch_date, lsn]
        track_except: [score]
        delete: {column: is_deleted}
        versions_format: avro
        topics: {changes: in.accounts, versions: out.accounts, dlq: bad.accounts}
        lateness_horizon: 7d
        output: {valid_from: start_date, valid_to: end_date, is_current: current_flag}
        service:
          data_dir: /var/lib/dimstream
          table_path: /tables/accounts
          kafka: {bootstrap.servers: "kafka:9092", security.protocol: SSL}
          compaction: {interval: 2m, max_records: 1000}
          http: {host: 127.0.0.2, port: 0}
          partitions: 6
        """));

    assertThat(spec.keyColumns()).extracting(Column::type).containsExactly(ColumnType.STRING, ColumnType.INT);
    assertThat(spec.column("balance").type()).isEqualTo(ColumnType.decimal(12, 2));
    assertThat(spec.tracked()).containsExactly("balance");
    assertThat(spec.deleteRule()).isEqualTo(new DeleteRule.BooleanColumn("is_deleted"));
    assertThat(spec.outputFormat()).isEqualTo(OutputFormat.AVRO);
    assertThat(spec.topics()).isEqualTo(new Topics("in.accounts", "out.accounts", "bad.accounts"));
    assertThat(spec.latenessHorizon()).as("days, for a date sequence").isEqualTo(7);
    assertThat(spec.output()).isEqualTo(new OutputColumns("start_date", "end_date", "current_flag"));
    assertThat(spec.extraValidFromColumns()).containsExactly("start_date_lsn");
    ServiceSettings s = spec.service();
    assertThat(s.dataDir()).isEqualTo(Path.of("/var/lib/dimstream"));
    assertThat(s.tablePath()).isEqualTo(TableLocation.local(Path.of("/tables/accounts")));
    assertThat(s.kafka()).isEqualTo(Map.of("bootstrap.servers", "kafka:9092", "security.protocol", "SSL"));
    assertThat(s.compactionInterval()).isEqualTo(Duration.ofMinutes(2));
    assertThat(s.compactionMaxRecords()).isEqualTo(1000);
    assertThat(s.httpHost()).isEqualTo("127.0.0.2");
    assertThat(s.httpPort()).isZero();
    assertThat(s.partitions()).isEqualTo(6);
  }

  @Test
  void shouldTakeAnS3TableAndItsStorageSettings() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write("s.yaml", """
        name: d
        columns: {id: long, seq: long}
        key: id
        sequence: seq
        lateness_horizon: 500
        service:
          table_path: s3://dims/warehouse/d
          storage: {s3: {endpoint: "http://minio:9000", region: eu-west-1, request_timeout: 5s, max_attempts: 3}}
        """));

    ServiceSettings s = spec.service();
    assertThat(s.tablePath()).isEqualTo(TableLocation.parse("s3://dims/warehouse/d"));
    assertThat(s.storage().endpoint()).isEqualTo("http://minio:9000");
    assertThat(s.storage().region()).isEqualTo("eu-west-1");
    assertThat(s.storage().effectivePathStyle(s.storage().effectiveEndpoint(Map.of()))).isTrue();
    assertThat(s.storage().requestTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.storage().maxAttempts()).isEqualTo(3);
  }

  @Test
  void shouldDefaultTheTablePathUnderTheDataDirAndTheDeleteRuleOfDebezium() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write("d.yaml", """
        name: d
        format: debezium
        columns: {id: long, seq: long}
        key: id
        sequence: seq
        lateness_horizon: 500
        service: {data_dir: /srv}
        """));

    assertThat(spec.inputFormat()).isEqualTo(InputFormat.DEBEZIUM_JSON);
    assertThat(spec.deleteRule()).isEqualTo(new DeleteRule.DebeziumOp());
    assertThat(spec.latenessHorizon()).isEqualTo(500);
    assertThat(spec.service().tablePath()).isEqualTo(TableLocation.local(Path.of("/srv", "tables", "d")));
  }

  @Test
  void shouldLoadTheShippedExamplesIncludingTheAvroSchemaRelativeToTheSpecFile() {
    DimensionSpec json = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    DimensionSpec avro = DimensionSpecLoader.load(Path.of("examples/customers-avro.yaml"));
    DimensionSpec debezium = DimensionSpecLoader.load(Path.of("examples/customers-debezium.yaml"));

    assertThat(avro.inputFormat()).isEqualTo(InputFormat.AVRO);
    assertThat(avro.avroSchema()).contains("CustomerChange");
    assertThat(avro.columns()).containsExactlyInAnyOrderElementsOf(json.columns());
    assertThat(debezium.inputFormat()).isEqualTo(InputFormat.DEBEZIUM_JSON);
    assertThat(debezium.deleteRule()).isEqualTo(new DeleteRule.DebeziumOp());
    assertThat(debezium.sequence()).containsExactly("ts_ms");
    assertThat(debezium.topics().changes()).isEqualTo("dbserver1.public.customers");
  }

  @Test
  void shouldResolveASchemaPathRelativeToTheSpecFileFromAnyDirectory() throws IOException {
    Files.createDirectories(dir.resolve("specs"));
    Files.copy(Path.of("schemas/customers-change.avsc"), dir.resolve("customers-change.avsc"));
    Path spec = write("specs/c.yaml", """
        name: c
        schema: ../customers-change.avsc
        format: avro
        key: [customer_id]
        sequence: [updated_at]
        """);

    assertThat(DimensionSpecLoader.load(spec).column("updated_at").type()).isEqualTo(ColumnType.TIMESTAMP);
  }

  @Test
  void shouldCountTheHorizonInTheUnitsOfAnAvroDescribedSequence() throws IOException {
    write("dated.avsc", """
        {"type": "record", "name": "Dated", "fields": [{"name": "id", "type": "long"},
          {"name": "day", "type": {"type": "int", "logicalType": "date"}},
          {"name": "lsn", "type": "long"}]}""");
    Path dated = write("dated.yaml", "name: d\nschema: dated.avsc\nformat: avro\nkey: [id]\nsequence: [day]\n"
        + "lateness_horizon: 2d\n");
    Path numbered = write("numbered.yaml", "name: n\nschema: dated.avsc\nformat: avro\nkey: [id]\nsequence: [lsn]\n"
        + "lateness_horizon: 2d\n");

    assertThat(DimensionSpecLoader.load(dated).latenessHorizon()).isEqualTo(2);
    assertThatThrownBy(() -> DimensionSpecLoader.load(numbered))
        .isInstanceOf(SpecException.class)
        .hasMessageContaining("field 'lateness_horizon'")
        .hasMessageContaining("plain number");
  }

  static Stream<Arguments> badSpecs() {
    String base = """
        name: customers
        columns: {customer_id: long, city: string, updated_at: timestamp, op: string, is_deleted: boolean}
        key: [customer_id]
        sequence: [updated_at]
        """;
    return Stream.of(
        bad("missing name", base.replace("name: customers\n", ""), "name", "add 'name:'"),
        bad("bad name", base.replace("name: customers", "name: 'my dim'"), "name", "use letters"),
        bad("unknown top-level field", base + "trak: [city]\n", "trak", "remove it"),
        bad("no columns", "name: c\nkey: [a]\nsequence: [b]\n", "columns", "list the columns"),
        bad("unknown column type", base.replace("city: string", "city: text"), "columns.city",
            "fix the type of 'city'"),
        bad("key not declared", base.replace("key: [customer_id]", "key: [id]"), "key", "declare it under 'columns'"),
        bad("no sequence", base.replace("sequence: [updated_at]\n", ""), "sequence", "list 1..n columns"),
        bad("string sequence", base.replace("sequence: [updated_at]", "sequence: [city]"), "sequence",
            "use a timestamp, date, long or int column"),
        bad("sequence is a key column", base.replace("sequence: [updated_at]", "sequence: [customer_id]"),
            "sequence", "orders events"),
        bad("track names a key column", base + "track: [customer_id]\n", "track", "list attribute columns only"),
        bad("track and track_except", base + "track: [city]\ntrack_except: [city]\n", "track", "keep only one"),
        bad("delete column not declared", base + "delete: {column: kind, equals: d}\n", "delete.column",
            "declare it under 'columns'"),
        bad("boolean delete on a string", base + "delete: {column: op}\n", "delete.column", "add 'equals: <value>'"),
        bad("unknown delete rule", base + "delete: soft\n", "delete", "use {column: op, equals: d}"),
        bad("debezium delete on json", base + "delete: debezium\n", "delete", "format: debezium-json"),
        bad("avro without schema", base + "format: avro\n", "format", "schema: path/to/schema.avsc"),
        bad("unknown format", base + "format: protobuf\n", "format", "use json, avro, debezium-json or debezium-avro"),
        bad("registry for json", base + "schema_registry: {url: http://registry:8081}\n", "schema_registry",
            "set 'format: avro' or 'debezium-avro'"),
        bad("registry without url", base + "format: avro\nschema_registry: {cache_size: 10}\n", "schema_registry.url",
            "Confluent-compatible API"),
        bad("registry url not http", base + "format: avro\nschema_registry: {url: registry:8081}\n",
            "schema_registry.url", "http://registry:8081"),
        bad("registry login from an unset variable", base + "format: avro\nschema_registry: {url: http://r:8081,"
            + " basic_auth: {user: u, password_env: DIMSTREAM_TEST_UNSET_VARIABLE}}\n",
            "schema_registry.basic_auth.password_env", "export DIMSTREAM_TEST_UNSET_VARIABLE"),
        bad("registry login without a password", base + "format: avro\nschema_registry: {url: http://r:8081,"
            + " basic_auth: {user: u}}\n", "schema_registry.basic_auth", "needs a user and a password"),
        bad("registry cache of none", base + "format: avro\nschema_registry: {url: http://r:8081, cache_size: 0}\n",
            "schema_registry.cache_size", "positive whole number"),
        bad("debezium-avro without registry", base + "format: debezium-avro\n", "format", "schema_registry"),
        bad("keyed changes not a boolean", base + "topics: {changes_keyed_by_business_key: yes please}\n",
            "topics.changes_keyed_by_business_key", "canonical business key"),
        bad("unknown versions format", base + "versions_format: csv\n", "versions_format", "use json or avro"),
        bad("unreadable horizon", base + "lateness_horizon: a month\n", "lateness_horizon", "write e.g. 30d"),
        bad("negative horizon", base + "lateness_horizon: -5\n", "lateness_horizon", "positive"),
        bad("output clashes with a column", base + "output: {valid_from: city}\n", "columns", "rename"),
        bad("missing schema file", "name: c\nschema: nowhere.avsc\nkey: [a]\nsequence: [b]\n", "schema",
            "relative to the spec file"),
        bad("columns and schema", base + "schema: x.avsc\n", "columns", "keep only one"),
        bad("unknown service field", base + "service: {data_directory: /x}\n", "service.data_directory", "use one of"),
        bad("unsupported table scheme", base + "service: {table_path: \"gs://dims/customers\"}\n",
            "service.table_path", "s3://bucket/prefix"),
        bad("malformed s3 table", base + "service: {table_path: \"s3:/dims/customers\"}\n", "service.table_path",
            "s3://bucket/prefix"),
        bad("unknown storage", base + "service: {storage: {gcs: {}}}\n", "service.storage.gcs", "use one of"),
        bad("bad s3 endpoint", base + "service: {storage: {s3: {endpoint: minio}}}\n",
            "service.storage.s3.endpoint", "http://minio:9000"),
        bad("port out of range", base + "service: {http: {port: 70000}}\n", "service.http.port", "0..65535"),
        bad("zero max records", base + "service: {compaction: {max_records: 0}}\n",
            "service.compaction.max_records", "above 0"),
        bad("unreadable interval", base + "service: {compaction: {interval: soon}}\n", "service.compaction.interval",
            "10s"),
        bad("typo in topics", base + "topics: {change: in}\n", "topics.change", "use one of"),
        bad("typo in output", base + "output: {valid_until: x}\n", "output.valid_until", "use one of"),
        bad("typo in delete", base + "delete: {column: op, equal: d}\n", "delete.equal", "use one of"),
        bad("double key", base.replace("customer_id: long", "customer_id: double"), "key", "use a long"));
  }

  private static Arguments bad(String name, String yaml, String field, String fix) {
    return Arguments.of(name, yaml, field, fix);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSpecs")
  void shouldFailNamingFileFieldAndFix(String name, String yaml, String field, String fix) throws IOException {
    Path file = write("bad.yaml", yaml);

    assertThatThrownBy(() -> DimensionSpecLoader.load(file))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(file + ": field '" + field + "': ")
        .hasMessageContaining("Fix: ")
        .hasMessageContaining(fix);
  }

  @Test
  void shouldReadTheKeyedChangesTopicOptionDefaultingToFalse() throws IOException {
    String base = "name: c\ncolumns: {id: long, seq: long}\nkey: [id]\nsequence: [seq]\n";

    assertThat(DimensionSpecLoader.load(write("plain.yaml", base)).topics().changesKeyed()).isFalse();
    assertThat(DimensionSpecLoader.load(write("keyed.yaml", base
        + "topics: {changes: in.c, changes_keyed_by_business_key: true}\n")).topics())
        .isEqualTo(new Topics("in.c", "c.versions", "c.dlq", true));
  }

  @Test
  void shouldNameTheFileWhenItIsNotYaml() throws IOException {
    Path file = write("broken.yaml", "name: [unclosed\n");

    assertThatThrownBy(() -> DimensionSpecLoader.load(file))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(file.toString())
        .hasMessageContaining("Fix: ");
  }

  @Test
  void shouldListTheAcceptedColumnTypes() {
    assertThat(List.of("long", "bigint", "int", "integer", "double", "decimal(10,3)", "boolean", "string", "date",
        "timestamp")).allSatisfy(t -> assertThat(ColumnType.parse(t)).isNotNull());
  }

  @Test
  void shouldReadFieldRulesWithTheirDefaults() throws IOException {
    DimensionSpec defaults = DimensionSpecLoader.load(write("d.yaml", README_EXAMPLE));
    DimensionSpec set = DimensionSpecLoader.load(write("s.yaml", README_EXAMPLE
        + "missing_fields: keep\nunknown_fields: reject\nunavailable_value: \"<none>\"\n"));

    assertThat(defaults.fields()).isEqualTo(new FieldRules(FieldRules.MissingFields.NULL,
        "__debezium_unavailable_value", FieldRules.UnknownFields.WARN));
    assertThat(set.fields()).isEqualTo(new FieldRules(FieldRules.MissingFields.KEEP, "<none>",
        FieldRules.UnknownFields.REJECT));
  }

  @Test
  void shouldRefuseAnUnknownMissingFieldsValueNamingTheChoices() throws IOException {
    Path file = write("bad.yaml", README_EXAMPLE + "missing_fields: skip\n");

    assertThatThrownBy(() -> DimensionSpecLoader.load(file)).isInstanceOf(SpecException.class)
        .hasMessageContaining("bad.yaml").hasMessageContaining("missing_fields").hasMessageContaining("keep");
  }
}
