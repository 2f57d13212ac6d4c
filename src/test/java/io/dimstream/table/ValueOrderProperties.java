package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import io.dimstream.fixtures.AnyNumber;
import io.dimstream.fixtures.AnyText;
import io.dimstream.model.BusinessKey;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.ValueOrder;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

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

  @Test
  void bucketIgnoresIntVersusLongAndDecimalScale() {
    qt().withExamples(1_000).forAll(AnyNumber.ints(), AnyNumber.longs()).checkAssert((k, unscaled) -> {
      assertThat(Buckets.of(BusinessKey.of(k), 64)).isEqualTo(Buckets.of(BusinessKey.of((long) k), 64));
      BigDecimal d = BigDecimal.valueOf(unscaled, 2);
      assertThat(Buckets.of(BusinessKey.of(d), 64)).isEqualTo(Buckets.of(BusinessKey.of(d.setScale(4)), 64));
    });
  }
}
