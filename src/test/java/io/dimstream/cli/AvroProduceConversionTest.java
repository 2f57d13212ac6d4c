package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code dimstream produce} sends for a spec with {@code format: avro}: the input converted by the schema. */
class AvroProduceConversionTest {
  private static final Path EXAMPLE_CHANGES = Path.of("examples/customers-changes.jsonl");

  /** Every Avro type a spec may use, with millis and micros timestamps and a fixed decimal. */
  private static final String ORDERS_SCHEMA = """
      {"type": "record", "name": "Order", "fields": [
        {"name": "order_id", "type": "long"},
        {"name": "line", "type": "int"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "fee", "type": ["null", {"type": "fixed", "name": "Fee", "size": 4, "logicalType": "decimal",
                                          "precision": 7, "scale": 1}], "default": null},
        {"name": "ratio", "type": ["null", "double"], "default": null},
        {"name": "weight", "type": ["null", "float"], "default": null},
        {"name": "paid", "type": ["null", "boolean"], "default": null},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "SHIPPED"]}, "default": "NEW"},
        {"name": "note", "type": ["string", "null"], "default": "none"},
        {"name": "due", "type": ["null", {"type": "int", "logicalType": "date"}], "default": null},
        {"name": "placed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-micros"}}
      ]}""";

  @TempDir
  Path dir;

  private DimensionSpec orders() throws IOException {
    Files.writeString(dir.resolve("order.avsc"), ORDERS_SCHEMA);
    Path spec = dir.resolve("orders.yaml");
    Files.writeString(spec, "name: orders\nschema: order.avsc\nformat: avro\nkey: [order_id, line]\n"
        + "sequence: [updated_at]\n");
    return DimensionSpecLoader.load(spec);
  }

  private static List<byte[]> read(Path file, DimensionSpec spec) throws IOException {
    List<byte[]> out = new ArrayList<>();
    try (InputFiles.LineReader lines = InputFiles.forTopic(file, spec)) {
      lines.forEachRemaining(l -> out.add(l.value()));
    }
    return out;
  }

  private static GenericRecord generic(DimensionSpec spec, byte[] value) throws IOException {
    GenericData data = new GenericData();
    data.addLogicalTypeConversion(new Conversions.DecimalConversion());
    data.addLogicalTypeConversion(new TimeConversions.DateConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    Schema schema = new Schema.Parser().parse(spec.avroSchema());
    var decoder = DecoderFactory.get().binaryDecoder(value, null);
    GenericRecord r = new GenericDatumReader<GenericRecord>(schema, schema, data).read(null, decoder);
    assertThat(decoder.isEnd()).as("no bytes after the record").isTrue();
    return r;
  }

  @Test
  void shouldDecodeTheConvertedExampleToTheSameEventsAsTheJsonLines() throws IOException {
    DimensionSpec json = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    DimensionSpec avro = DimensionSpecLoader.load(Path.of("examples/customers-avro.yaml"));
    ChangeDecoder jsonDecoder = ChangeDecoder.forSpec(json);
    ChangeDecoder avroDecoder = ChangeDecoder.forSpec(avro);
    List<String> good = new ArrayList<>();
    for (String line : Files.readAllLines(EXAMPLE_CHANGES)) {
      if (!line.isBlank() && jsonDecoder.decode(null, line.getBytes(StandardCharsets.UTF_8), -1)
          instanceof Decoded.Accepted) {
        good.add(line);
      }
    }
    Path file = Files.write(dir.resolve("good.jsonl"), good);

    List<byte[]> values = read(file, avro);

    assertThat(values).hasSize(good.size()).hasSizeGreaterThan(300);
    for (int i = 0; i < good.size(); i++) {
      assertThat(avroDecoder.decode(null, values.get(i), -1)).as("line %d", i + 1)
          .isEqualTo(jsonDecoder.decode(null, good.get(i).getBytes(StandardCharsets.UTF_8), -1));
    }
  }

  @Test
  void shouldStopAtTheExampleFilesBadLinesNamingFileAndLine() {
    DimensionSpec avro = DimensionSpecLoader.load(Path.of("examples/customers-avro.yaml"));

    assertThatThrownBy(() -> InputFiles.checkAll(EXAMPLE_CHANGES, avro))
        .isInstanceOf(CliErrors.InputError.class)
        .hasMessageStartingWith(EXAMPLE_CHANGES + ", line ")
        .hasMessageContaining("Nothing was sent").hasMessageContaining("Fix:");
  }

  @Test
  void shouldWriteEveryTypeAfterTheSchemaFromJsonLines() throws IOException {
    DimensionSpec spec = orders();
    Path file = Files.write(dir.resolve("orders.jsonl"), List.of(
        "{\"order_id\": 7, \"line\": 2, \"amount\": \"-12.5\", \"fee\": 3.5, \"ratio\": 0.25, \"weight\": 1.5,"
            + " \"paid\": true, \"status\": \"SHIPPED\", \"note\": \"fragile\", \"due\": \"2026-04-01\","
            + " \"placed_at\": \"2026-03-02T08:00:00.123Z\", \"updated_at\": \"2026-03-02T08:00:00.123456Z\","
            + " \"unknown\": [1, 2]}",
        "",
        "{\"order_id\": \"8\", \"line\": 1, \"amount\": 1, \"placed_at\": 1772438400000,"
            + " \"updated_at\": 1772438400001}"));

    List<byte[]> values = read(file, spec);

    assertThat(values).hasSize(2);
    GenericRecord full = generic(spec, values.get(0));
    assertThat(full.get("order_id")).isEqualTo(7L);
    assertThat(full.get("line")).isEqualTo(2);
    assertThat(full.get("amount")).isEqualTo(new BigDecimal("-12.50"));
    assertThat(full.get("fee")).isEqualTo(new BigDecimal("3.5"));
    assertThat(full.get("ratio")).isEqualTo(0.25);
    assertThat(full.get("weight")).isEqualTo(1.5f);
    assertThat(full.get("paid")).isEqualTo(true);
    assertThat(full.get("status").toString()).isEqualTo("SHIPPED");
    assertThat(full.get("note").toString()).isEqualTo("fragile");
    assertThat(full.get("due")).isEqualTo(LocalDate.of(2026, 4, 1));
    assertThat(full.get("placed_at")).isEqualTo(Instant.parse("2026-03-02T08:00:00.123Z"));
    assertThat(full.get("updated_at")).isEqualTo(Instant.parse("2026-03-02T08:00:00.123456Z"));

    GenericRecord sparse = generic(spec, values.get(1));
    assertThat(sparse.get("order_id")).isEqualTo(8L);
    assertThat(sparse.get("amount")).isEqualTo(new BigDecimal("1.00"));
    assertThat(sparse.get("fee")).isNull();
    assertThat(sparse.get("status").toString()).as("the field's default").isEqualTo("NEW");
    assertThat(sparse.get("note")).as("a missing nullable field is null").isNull();
    assertThat(sparse.get("placed_at")).isEqualTo(Instant.ofEpochMilli(1_772_438_400_000L));
    assertThat(sparse.get("updated_at")).as("JSON numbers are epoch millis")
        .isEqualTo(Instant.ofEpochMilli(1_772_438_400_001L));
  }

  @Test
  void shouldConvertCsvRowsWithEmptyCellsAsNull() throws IOException {
    DimensionSpec spec = orders();
    Path file = Files.writeString(dir.resolve("orders.csv"),
        "order_id,line,amount,paid,due,placed_at,updated_at\n"
            + "9,3,4.20,false,2026-05-06,2026-03-02T09:00:00+01:00,2026-03-02T08:00:00.000001Z\n"
            + "9,4,0.01,,,1772438400000,1772438400000\n");

    List<byte[]> values = read(file, spec);

    assertThat(values).hasSize(2);
    GenericRecord first = generic(spec, values.get(0));
    assertThat(first.get("amount")).isEqualTo(new BigDecimal("4.20"));
    assertThat(first.get("paid")).isEqualTo(false);
    assertThat(first.get("due")).isEqualTo(LocalDate.of(2026, 5, 6));
    assertThat(first.get("placed_at")).isEqualTo(Instant.parse("2026-03-02T08:00:00Z"));
    assertThat(first.get("updated_at")).isEqualTo(Instant.parse("2026-03-02T08:00:00.000001Z"));
    GenericRecord second = generic(spec, values.get(1));
    assertThat(second.get("paid")).isNull();
    assertThat(second.get("due")).isNull();
  }

  @Test
  void shouldNameLineFieldAndProblemOfARecordThatCannotBeConverted() throws IOException {
    DimensionSpec spec = orders();
    String ok = "{\"order_id\": 1, \"line\": 1, \"amount\": 1, \"placed_at\": 1, \"updated_at\": 1}";
    record Bad(String line, String... expected) {}
    List<Bad> cases = List.of(
        new Bad("{\"order_id\": 1, \"line\": 1, \"amount\": \"lots\", \"placed_at\": 1, \"updated_at\": 1}",
            "field 'amount' (decimal)", "\"lots\""),
        new Bad("{\"order_id\": 1, \"line\": 1, \"amount\": 1.234, \"placed_at\": 1, \"updated_at\": 1}",
            "field 'amount' (decimal)", "2 decimal places"),
        new Bad("{\"line\": 1, \"amount\": 1, \"placed_at\": 1, \"updated_at\": 1}",
            "field 'order_id' (long) is missing or null"),
        new Bad("{\"order_id\": 1, \"line\": 1, \"amount\": 1, \"placed_at\": \"2026-03-02T08:00:00.0005Z\","
            + " \"updated_at\": 1}", "field 'placed_at' (timestamp-millis)", "finer than millis"),
        new Bad("{\"order_id\": 1, \"line\": 1, \"amount\": 1, \"status\": \"LOST\", \"placed_at\": 1,"
            + " \"updated_at\": 1}", "field 'status' (enum)", "\"LOST\" is not one of the symbols [NEW, SHIPPED]"),
        new Bad("{\"order_id\": 1, \"line\": 1, \"amount\": 1, \"fee\": 1000000, \"placed_at\": 1, \"updated_at\": 1}",
            "field 'fee' (decimal)"),
        new Bad("[1, 2]", "not a JSON object"),
        new Bad("{\"order_id\": 1, \"line\": ", "not valid JSON"));
    for (Bad bad : cases) {
      Path file = Files.write(dir.resolve("bad.jsonl"), List.of(ok, "", bad.line(), ok));

      assertThatThrownBy(() -> InputFiles.checkAll(file, spec)).as(bad.line())
          .isInstanceOf(CliErrors.InputError.class)
          .hasMessageStartingWith(file + ", line 3: ")
          .hasMessageContainingAll(bad.expected());
    }
  }

  @Test
  void shouldSendJsonSpecsLinesByteForByte() throws IOException {
    DimensionSpec json = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    List<String> lines = Files.readAllLines(EXAMPLE_CHANGES).stream().filter(l -> !l.isBlank()).toList();

    assertThat(read(EXAMPLE_CHANGES, json)).map(b -> new String(b, StandardCharsets.UTF_8))
        .containsExactlyElementsOf(lines);
  }
}
