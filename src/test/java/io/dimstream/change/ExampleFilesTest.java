package io.dimstream.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.spec.OutputColumns;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The shipped examples and schemas are what the README says they are. */
class ExampleFilesTest {

  @Test
  void shouldDecodeTheExampleChangesExceptExactlyTheTwoBadRecords() throws IOException {
    ChangeDecoder decoder = ChangeDecoder.forSpec(TestSpecs.customers());
    List<String> lines = Files.readAllLines(Path.of("examples/customers-changes.jsonl"));
    List<ChangeEvent> accepted = new ArrayList<>();
    List<String> reasons = new ArrayList<>();

    for (String line : lines) {
      Decoded d = decoder.decode(null, line.getBytes(StandardCharsets.UTF_8), 0);
      if (d instanceof Decoded.Accepted a) {
        accepted.add(a.event());
      } else {
        reasons.add(((Decoded.Rejected) d).reason());
      }
    }

    assertThat(lines).hasSizeBetween(200, 400);
    assertThat(reasons).containsExactlyInAnyOrder(RejectReason.MALFORMED_JSON, RejectReason.MISSING_KEY);
    assertThat(accepted.stream().map(ChangeEvent::key).distinct().count()).isBetween(35L, 45L);
    assertThat(accepted).anyMatch(ChangeEvent::delete);
    long jan1of2026 = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000;
    long jan1of2027 = Instant.parse("2027-01-01T00:00:00Z").getEpochSecond() * 1_000_000;
    assertThat(accepted).allSatisfy(e -> assertThat(e.sequence().first()).isBetween(jan1of2026, jan1of2027));
    assertThat(new HashSet<>(accepted)).as("exact duplicates are in the file").hasSizeLessThan(accepted.size());
  }

  private static String readmeSection(String name) throws IOException {
    return Files.readString(Path.of("docs/reference/" + name + ".md"));
  }

  @Test
  void shouldDecodeTheReadmeRecordExamples() throws IOException {
    String section = readmeSection("formats");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("```json\\n(.*?)```", java.util.regex.Pattern.DOTALL)
        .matcher(section);
    assertThat(m.find()).isTrue();
    ChangeDecoder json = ChangeDecoder.forSpec(TestSpecs.customers());
    List<String> lines = m.group(1).lines().toList();
    assertThat(lines).hasSize(3).allSatisfy(line ->
        assertThat(json.decode(null, line.getBytes(StandardCharsets.UTF_8), 0)).isInstanceOf(Decoded.Accepted.class));
    assertThat(m.find()).isTrue();
    Decoded debezium = ChangeDecoder.forSpec(TestSpecs.debezium())
        .decode(null, m.group(1).getBytes(StandardCharsets.UTF_8), 0);
    assertThat(debezium).isInstanceOf(Decoded.Accepted.class);
  }

  @Test
  void shouldQuoteRealRejectionDetailsInTheReadme() throws IOException {
    String section = readmeSection("formats");
    ChangeDecoder json = ChangeDecoder.forSpec(TestSpecs.customers());
    ChangeDecoder debezium = ChangeDecoder.forSpec(TestSpecs.debezium());
    byte[][] customersRecords = {
        TestSpecs.json("{'city':'Oslo','updated_at':0}"),
        TestSpecs.json("{'customer_id':1}"),
        TestSpecs.json("{'customer_id':1,'updated_at':'2026-03-01T08:00:00'}"),
    };
    for (byte[] value : customersRecords) {
      assertThat(section).contains(((Decoded.Rejected) json.decode(null, value, 0)).detail());
    }
    assertThat(section).contains(((Decoded.Rejected) debezium.decode(null,
        TestSpecs.json("{'op':'t','ts_ms':1}"), 0)).detail());
  }

  @Test
  void shouldHaveLateEventsInTheExampleChanges() throws IOException {
    ChangeDecoder decoder = ChangeDecoder.forSpec(TestSpecs.customers());
    java.util.Map<Object, Long> newest = new java.util.HashMap<>();
    int late = 0;
    for (String line : Files.readAllLines(Path.of("examples/customers-changes.jsonl"))) {
      if (decoder.decode(null, line.getBytes(StandardCharsets.UTF_8), 0) instanceof Decoded.Accepted a) {
        long seq = a.event().sequence().first();
        Long prev = newest.merge(a.event().key(), seq, Math::max);
        late += prev > seq ? 1 : 0;
      }
    }
    assertThat(late).isGreaterThan(5);
  }

  @Test
  void shouldDescribeTheVersionEnvelopeWithTheDefaultOutputColumnsAndChangeKinds() throws IOException {
    Schema version = new Schema.Parser().parse(Path.of("schemas/version.avsc").toFile());
    OutputColumns out = OutputColumns.DEFAULT;

    assertThat(version.getFields()).extracting(Schema.Field::name)
        .containsExactly(out.validFrom(), out.validTo(), out.isCurrent(), "change");
    assertThat(version.getField(out.validTo()).schema().isNullable()).isTrue();
    assertThat(version.getField(out.validFrom()).schema().isNullable()).isFalse();
    assertThat(version.getField("change").schema().getEnumSymbols())
        .containsExactlyElementsOf(Arrays.stream(ChangeKind.values()).map(ChangeKind::wireName).toList());
  }

  @Test
  void shouldDeclareTheExampleCustomersColumnsInTheChangeSchema() {
    Set<String> avroColumns = new HashSet<>();
    AvroChangeDecoderTest.CUSTOMERS.columns().forEach(c -> avroColumns.add(c.name() + ":" + c.type()));
    Set<String> jsonColumns = new HashSet<>();
    TestSpecs.customers().columns().forEach(c -> jsonColumns.add(c.name() + ":" + c.type()));

    assertThat(avroColumns).isEqualTo(jsonColumns);
    assertThat(AvroChangeDecoderTest.CUSTOMERS.tracked()).isEqualTo(TestSpecs.customers().tracked());
  }
}
