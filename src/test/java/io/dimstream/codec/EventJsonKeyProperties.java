package io.dimstream.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;

import io.dimstream.fixtures.AnyNumber;
import io.dimstream.fixtures.AnyText;
import io.dimstream.model.BusinessKey;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** One-column keys read straight from their canonical bytes give what the JSON tree gives. */
class EventJsonKeyProperties {
  private static final EventJson LONG_KEY = new EventJson(spec(ColumnType.LONG));
  private static final EventJson STRING_KEY = new EventJson(spec(ColumnType.STRING));

  private static DimensionSpec spec(ColumnType keyType) {
    return DimensionSpec.builder("things").column("id", keyType).column("name", ColumnType.STRING)
        .column("lsn", ColumnType.LONG).key("id").sequence("lsn").build();
  }

  @Test
  void shouldReadALongKeyBackAsTheTreeDoes() {
    qt().withExamples(3_000).forAll(AnyNumber.longs()).checkAssert(id -> {
      byte[] bytes = LONG_KEY.keyBytes(BusinessKey.of(id));
      assertThat(LONG_KEY.key(bytes)).isEqualTo(BusinessKey.of(id)).isEqualTo(LONG_KEY.keyFromTree(bytes));
    });
  }

  @Test
  void shouldReadAStringKeyBackAsTheTreeDoes() {
    qt().withExamples(3_000).forAll(AnyText.strings255()).checkAssert(id -> {
      byte[] bytes = STRING_KEY.keyBytes(BusinessKey.of(id));
      assertThat(STRING_KEY.key(bytes)).isEqualTo(BusinessKey.of(id)).isEqualTo(STRING_KEY.keyFromTree(bytes));
    });
  }

  @Test
  void shouldLeaveOtherFormsToTheTree() {
    for (String form : new String[] {"[1.0]", "[1e3]", "[\"42\"]", "[9223372036854775807]", "[-9223372036854775808]",
        "[-0]", "[ 7 ]"}) {
      byte[] bytes = form.getBytes(StandardCharsets.UTF_8);
      assertThat(outcome(() -> LONG_KEY.key(bytes))).as(form).isEqualTo(outcome(() -> LONG_KEY.keyFromTree(bytes)));
    }
    for (String form : new String[] {"[\"a\\\"b\"]", "[\"a\\u0001\"]", "[42]", "[true]", "[\"\"]"}) {
      byte[] bytes = form.getBytes(StandardCharsets.UTF_8);
      assertThat(outcome(() -> STRING_KEY.key(bytes))).as(form)
          .isEqualTo(outcome(() -> STRING_KEY.keyFromTree(bytes)));
    }
    byte[] two = "[\"a\",\"b\"]".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> STRING_KEY.key(two)).isInstanceOf(IllegalArgumentException.class);
  }

  /** The key read, or the kind of exception reading it threw. */
  private static Object outcome(java.util.function.Supplier<BusinessKey> read) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      return e.getClass();
    }
  }
}
