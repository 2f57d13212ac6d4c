package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.Topics;
import io.dimstream.types.ColumnType;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class CommitIntervalTest {
  private static DimensionSpec spec(boolean keyed) {
    return DimensionSpec.builder("items")
        .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("seq", ColumnType.LONG)
        .key("id").sequence("seq")
        .topics(new Topics("items.changes", "items.versions", "items.dlq", keyed))
        .build();
  }

  private static long applied(DimensionSpec spec, Properties props) {
    CommitInterval.applyDefault(props, spec);
    return Long.parseLong(props.getProperty("commit.interval.ms"));
  }

  @Test
  void shouldGiveAChangeTheSameLatencyBudgetWhetherItCrossesOneTransactionOrTwo() {
    long keyed = applied(spec(true), new Properties());
    long repartitioned = applied(spec(false), new Properties());
    // a change on the repartitioned path waits for two commits, one per hop
    assertThat(2 * repartitioned).isEqualTo(keyed);
    assertThat(keyed).isEqualTo(100);
  }

  @Test
  void shouldKeepTheIntervalTheUserSet() {
    Properties p = new Properties();
    p.put("commit.interval.ms", "1000");
    assertThat(applied(spec(false), p)).isEqualTo(1000);
    assertThat(applied(spec(true), p)).isEqualTo(1000);
  }
}
