package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.FieldRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code unknown_fields: warn} through the topology: applied, counted per field name in the Streams metrics. */
class UnknownFieldsTopologyTest {

  private static DimensionSpec spec(FieldRules.UnknownFields unknown) {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long").column("city", "string").column("seq", "long")
        .key("customer_id").sequence("seq")
        .fields(new FieldRules(FieldRules.MissingFields.NULL, FieldRules.DEBEZIUM_UNAVAILABLE, unknown)).build();
  }

  @Test
  void shouldApplyAndCountUndeclaredFieldsByNameUnderWarn() {
    try (TopologyRunner run = TopologyRunner.of(spec(FieldRules.UnknownFields.WARN))) {
      run.send("{\"customer_id\": 1, \"seq\": 1, \"city\": \"Oslo\", \"loyalty\": 3}",
          "{\"customer_id\": 2, \"seq\": 1, \"city\": \"Rome\", \"loyalty\": 4, \"tags\": []}",
          "{\"customer_id\": 3, \"seq\": 1, \"city\": \"Bern\"}");

      assertThat(run.history()).hasSize(3);
      assertThat(run.rejections()).isEmpty();
      assertThat(TopologyMetrics.totalsBy(run.driver().metrics(), TopologyMetrics.Counter.UNKNOWN_FIELDS,
          TopologyMetrics.FIELD_TAG)).isEqualTo(Map.of("loyalty", 2.0, "tags", 1.0));
    }
  }

  @Test
  void shouldCountNothingUnderIgnore() {
    try (TopologyRunner run = TopologyRunner.of(spec(FieldRules.UnknownFields.IGNORE))) {
      run.send("{\"customer_id\": 1, \"seq\": 1, \"city\": \"Oslo\", \"loyalty\": 3}");

      assertThat(run.history()).hasSize(1);
      assertThat(TopologyMetrics.totalsBy(run.driver().metrics(), TopologyMetrics.Counter.UNKNOWN_FIELDS,
          TopologyMetrics.FIELD_TAG)).isEmpty();
    }
  }
}
