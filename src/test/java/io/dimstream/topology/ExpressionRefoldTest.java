package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.change.RejectReason;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.Expressions;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A late event re-derives the stored events after it; if one of those now fails, the late event is refused. */
class ExpressionRefoldTest {
  // ratio fails (division by zero) for an event whose previous version has level 1
  static final DimensionSpec LEVELS = DimensionSpec.builder("levels")
      .column("id", ColumnType.LONG).column("level", ColumnType.LONG).column("ratio", ColumnType.LONG)
      .column("seq", ColumnType.LONG).key("id").sequence("seq")
      .expressions(new Expressions(Map.of("ratio", "prev == null ? 0 : 10 / (prev.level - 1)"), null))
      .build();

  @TempDir
  Path stateDir;

  static String level(long seq, long level) {
    return "{\"id\": 1, \"level\": " + level + ", \"seq\": " + seq + "}";
  }

  @Test
  void shouldRefuseALateEventThatMakesALaterEventsExpressionFailAndKeepTheHistory() {
    try (TopologyRunner h = TopologyRunner.builder(LEVELS).stateDir(stateDir).build()) {
      h.send(level(5, 3), level(9, 4));
      String late = level(7, 1); // would make the event at 9 divide by zero

      h.send(late);

      assertThat(h.rejections()).singleElement().satisfies(r -> {
        assertThat(r.reason()).isEqualTo(RejectReason.EXPRESSION_ERROR);
        assertThat(r.valueText()).isEqualTo(late);
        assertThat(r.detail()).contains("this late event (sequence 7) is not applied", "derive.ratio",
            "at sequence 9", "/ by zero");
      });
      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(5), Sequence.of(9), Arrays.asList(3L, 0L)),
          new Version(BusinessKey.of(1L), Sequence.of(9), null, Arrays.asList(4L, 5L)));
    }
  }
}
