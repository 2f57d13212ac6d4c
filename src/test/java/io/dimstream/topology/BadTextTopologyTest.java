package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.change.RejectReason;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records that would crash the table writer later are dead-lettered at the door, and the stream goes on. */
class BadTextTopologyTest {
  @TempDir
  Path dir;

  @Test
  void shouldDeadLetterALoneSurrogateAndAnEdgeTimestampAndApplyTheNextRecord() {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    try (TopologyRunner h = TopologyRunner.builder(spec).stateDir(dir).build()) {
      h.send("{\"customer_id\":907,\"name\":\"\\ud800\",\"city\":\"Oslo\",\"updated_at\":\"2026-03-01T08:00:00Z\"}",
          "{\"customer_id\":908,\"city\":\"Oslo\",\"updated_at\":9223372036854775807}",
          "{\"customer_id\":909,\"city\":\"Oslo\",\"updated_at\":\"+999999999-12-31T23:59:59Z\"}",
          "{\"customer_id\":907,\"name\":\"Ada\",\"city\":\"Oslo\",\"updated_at\":\"2026-03-01T09:00:00Z\"}");

      assertThat(h.rejections()).extracting(TopologyRunner.Rejection::reason)
          .containsExactly(RejectReason.BAD_ENCODING, RejectReason.BAD_TYPE, RejectReason.BAD_TYPE);
      assertThat(h.history()).singleElement().satisfies(v -> assertThat(v.attributes()).contains("Ada"));
    }
  }
}
