package io.dimstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Partial rows and undeclared fields through the real topology, from a spec file as a user writes it. */
class FieldRulesTopologyTest {
  @TempDir
  Path dir;

  private DimensionSpec spec(String extra) throws IOException {
    Path file = dir.resolve("customers.yaml");
    Files.writeString(file, """
        name: customers
        columns: {customer_id: long, name: string, city: string, tier: string, seq: long}
        key: [customer_id]
        sequence: [seq]
        track: [city, tier]
        """ + extra);
    return DimensionSpecLoader.load(file);
  }

  /** The example spec of the record formats reference's "Partial rows and undeclared fields" section, verbatim. */
  private DimensionSpec readmeSpec() throws IOException {
    String readme = Files.readString(Path.of("docs/reference/formats.md"));
    int section = readme.indexOf("## Partial rows and undeclared fields");
    int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
    Path file = dir.resolve("readme.yaml");
    Files.writeString(file, readme.substring(start, readme.indexOf("```", start)));
    return DimensionSpecLoader.load(file);
  }

  @Test
  void shouldGiveTheReadmeExampleHistory() throws IOException {
    try (DimensionTestDriver dim = DimensionTestDriver.of(readmeSpec())) {
      dim.send(
          "{\"customer_id\": 1, \"seq\": 10, \"city\": \"Oslo\", \"tier\": \"gold\"}",
          "{\"customer_id\": 1, \"seq\": 30, \"tier\": \"silver\"}",
          "{\"customer_id\": 1, \"seq\": 20, \"city\": \"Rome\"}");

      assertThat(dim.versions(1L)).extracting(v -> v.validFrom().first(), Version::attributes).containsExactly(
          org.assertj.core.groups.Tuple.tuple(10L, attrs(null, "Oslo", "gold")),
          org.assertj.core.groups.Tuple.tuple(20L, attrs(null, "Rome", "gold")),
          org.assertj.core.groups.Tuple.tuple(30L, attrs(null, "Rome", "silver")));
    }
  }

  private static List<Object> attrs(Object... values) {
    return Arrays.asList(values);
  }

  @Test
  void shouldKeepAbsentAttributesWhateverTheArrivalOrder() throws IOException {
    try (DimensionTestDriver dim = DimensionTestDriver.of(spec("missing_fields: keep\n"))) {
      dim.send(
          "{\"customer_id\": 1, \"seq\": 10, \"name\": \"Ada\", \"city\": \"Oslo\", \"tier\": \"gold\"}",
          "{\"customer_id\": 1, \"seq\": 30, \"tier\": \"silver\"}",
          // late: the event at 30 now keeps Rome, not Oslo
          "{\"customer_id\": 1, \"seq\": 20, \"city\": \"Rome\"}",
          "{\"customer_id\": 1, \"seq\": 40, \"name\": null}");

      List<Version> history = dim.versions(1L);
      assertThat(history).extracting(Version::attributes).containsExactly(
          attrs("Ada", "Oslo", "gold"),
          attrs("Ada", "Rome", "gold"),
          attrs(null, "Rome", "silver"));
      assertThat(history.get(2).validFrom().first()).isEqualTo(30L);
      assertThat(dim.dlq()).isEmpty();
      dim.assertInvariants();
    }
  }

  @Test
  void shouldNullAbsentAttributesByDefault() throws IOException {
    try (DimensionTestDriver dim = DimensionTestDriver.of(spec(""))) {
      dim.send(
          "{\"customer_id\": 1, \"seq\": 10, \"name\": \"Ada\", \"city\": \"Oslo\", \"tier\": \"gold\"}",
          "{\"customer_id\": 1, \"seq\": 20, \"tier\": \"gold\"}");

      assertThat(dim.current(1L).orElseThrow().attributes()).isEqualTo(attrs(null, null, "gold"));
    }
  }

  @Test
  void shouldKeepDebeziumToastedColumns() throws IOException {
    String debezium = "format: debezium-json\n";
    try (DimensionTestDriver dim = DimensionTestDriver.of(spec(debezium))) {
      dim.send(
          "{\"op\": \"c\", \"before\": null, \"after\": {\"customer_id\": 1, \"seq\": 10, \"name\": \"Ada\","
              + " \"city\": \"Oslo\", \"tier\": \"gold\"}}",
          "{\"op\": \"u\", \"before\": null, \"after\": {\"customer_id\": 1, \"seq\": 20,"
              + " \"name\": \"__debezium_unavailable_value\", \"city\": \"Bern\", \"tier\": \"gold\"}}");

      assertThat(dim.versions(1L)).extracting(Version::attributes).containsExactly(
          attrs("Ada", "Oslo", "gold"), attrs("Ada", "Bern", "gold"));
    }
  }

  @Test
  void shouldDeadLetterUndeclaredFieldsUnderReject() throws IOException {
    try (DimensionTestDriver dim = DimensionTestDriver.of(spec("unknown_fields: reject\n"))) {
      dim.send(
          "{\"customer_id\": 1, \"seq\": 10, \"name\": \"Ada\", \"city\": \"Oslo\", \"tier\": \"gold\"}",
          "{\"customer_id\": 1, \"seq\": 20, \"name\": \"Ada\", \"city\": \"Rome\", \"loyalty\": 9}");

      assertThat(dim.versions(1L)).hasSize(1);
      assertThat(dim.dlq()).singleElement().satisfies(r -> {
        assertThat(r.reason()).isEqualTo("unknown-field");
        assertThat(r.detail()).contains("loyalty");
        assertThat(r.valueText()).contains("\"loyalty\": 9");
      });
    }
  }
}
