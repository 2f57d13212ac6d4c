package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;

import io.dimstream.fixtures.AnyNumber;
import io.dimstream.fixtures.AnyText;
import io.dimstream.model.BusinessKey;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.ValueOrder;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Statistics order strings as Parquet and Delta do (UTF-8 bytes); buckets do not depend on a value's Java form. */
class ValueOrderProperties {
  @Test
  void stringsCompareLikeTheirUtf8Bytes() {
    qt().withExamples(1_000).forAll(AnyText.strings255(), AnyText.strings255()).checkAssert((a, b) -> {
      int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
          b.getBytes(StandardCharsets.UTF_8)));
      assertThat(Integer.signum(ValueOrder.compare(a, b))).isEqualTo(expected);
    });
  }

  /** Lone surrogates have no UTF-8 form, yet Java strings may hold them: the order must still be total. */
  @Test
  void stringsWithLoneSurrogatesCompareLikeTheirCodePoints() {
    Gen<String> part = Generate.pick(List.of("a", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uE000",
        "\uFFFF", "\uD800\uDC00", "\uDBFF\uDFFF"));
    Gen<String> surrogateText = lists().of(part).ofSizeBetween(0, 5).map(parts -> String.join("", parts));
    qt().withExamples(5_000).forAll(surrogateText, surrogateText).checkAssert((a, b) -> {
      int expected = Integer.signum(Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray()));
      assertThat(Integer.signum(ValueOrder.compare(a, b))).as("%s vs %s", escaped(a), escaped(b))
          .isEqualTo(expected);
    });
  }

  private static String escaped(String s) {
    StringBuilder out = new StringBuilder();
    s.chars().forEach(c -> out.append(String.format("\\u%04X", c)));
    return out.toString();
  }

  @Test
  void bucketIgnoresIntVersusLongAndDecimalScale() {
    qt().withExamples(1_000).forAll(AnyNumber.ints(), AnyNumber.longs()).checkAssert((k, unscaled) -> {
      assertThat(Buckets.of(BusinessKey.of(k), 64)).isEqualTo(Buckets.of(BusinessKey.of((long) k), 64));
      BigDecimal d = BigDecimal.valueOf(unscaled, 2);
      assertThat(Buckets.of(BusinessKey.of(d), 64)).isEqualTo(Buckets.of(BusinessKey.of(d.setScale(4)), 64));
    });
  }
}
