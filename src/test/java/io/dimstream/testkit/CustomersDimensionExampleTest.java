package io.dimstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The test kit example of docs/testing.md, verbatim: a user's test of their own dimension spec. */
class CustomersDimensionExampleTest {

  @Test
  void lateMoveIsSplicedIntoHistory() {
    try (DimensionTestDriver customers = DimensionTestDriver.of(Path.of("examples/customers.yaml"))) {
      customers.send(
          "{\"customer_id\": 42, \"name\": \"Ada\", \"city\": \"Oslo\", \"tier\": \"gold\", \"updated_at\": \"2026-03-01T00:00:00Z\"}",
          "{\"customer_id\": 42, \"name\": \"Ada\", \"city\": \"Rome\", \"tier\": \"gold\", \"updated_at\": \"2026-05-01T00:00:00Z\"}",
          // arrives last, happened in between: spliced into history, not dropped
          "{\"customer_id\": 42, \"name\": \"Ada\", \"city\": \"Bern\", \"tier\": \"gold\", \"updated_at\": \"2026-04-01T00:00:00Z\"}");

      List<Version> history = customers.versions(42);
      assertThat(history).hasSize(3);
      assertThat(customers.asOf("2026-04-15T00:00:00Z", 42).orElseThrow().attributes()).contains("Bern");
      assertThat(customers.current(42).orElseThrow().attributes()).contains("Rome");
      assertThat(customers.dlq()).isEmpty();
      customers.assertInvariants();
    }
  }

  @Test
  void generatedStreamGivesTheReferenceHistory() {
    DimensionSpec spec = io.dimstream.spec.DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 7).keys(50).events(2_000)
        .late(0.1).duplicates(0.05).deletes(0.03).generate();
    try (DimensionTestDriver customers = DimensionTestDriver.of(spec)) {
      customers.send(stream);
      assertThat(customers.versions()).containsExactlyElementsOf(
          io.dimstream.history.Scd2Fold.fold(spec, stream.events()));
      assertThat(customers.dlq()).isEmpty();
      customers.assertInvariants();
    }
  }
}
