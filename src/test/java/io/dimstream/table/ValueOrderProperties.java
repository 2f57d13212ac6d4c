package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.table.internal.files.Buckets;
import io.dimstream.table.internal.files.ValueOrder;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Statistics order strings as Parquet and Delta do (UTF-8 bytes); buckets do not depend on a value's Java form. */
class ValueOrderProperties {
  @Property
  void stringsCompareLikeTheirUtf8Bytes(@ForAll String a, @ForAll String b) {
    int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
        b.getBytes(StandardCharsets.UTF_8)));
    assertThat(Integer.signum(ValueOrder.compare(a, b))).isEqualTo(expected);
  }

  @Property
  void bucketIgnoresIntVersusLongAndDecimalScale(@ForAll int k, @ForAll long unscaled) {
    assertThat(Buckets.of(BusinessKey.of(k), 64)).isEqualTo(Buckets.of(BusinessKey.of((long) k), 64));
    BigDecimal d = BigDecimal.valueOf(unscaled, 2);
    assertThat(Buckets.of(BusinessKey.of(d), 64)).isEqualTo(Buckets.of(BusinessKey.of(d.setScale(4)), 64));
  }
}
