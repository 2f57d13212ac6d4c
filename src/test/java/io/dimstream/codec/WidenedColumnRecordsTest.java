package io.dimstream.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputFormat;
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Records written before a column was widened (versions topic in either format, the topology's stored events) read
 * after the widening as the wider type: the table follows only widenings whose encodings are the same.
 */
class WidenedColumnRecordsTest {

  static Stream<Arguments> widenings() {
    return Stream.of(
        Arguments.of(Named.of("int to long", ColumnType.INT), ColumnType.LONG, 7, 7L),
        Arguments.of(Named.of("int to long, negative", ColumnType.INT), ColumnType.LONG, Integer.MIN_VALUE,
            (long) Integer.MIN_VALUE),
        Arguments.of(Named.of("decimal(10,2) to decimal(18,2)", ColumnType.decimal(10, 2)), ColumnType.decimal(18, 2),
            new BigDecimal("-12345678.90"), new BigDecimal("-12345678.90")));
  }

  private static DimensionSpec spec(ColumnType amount, OutputFormat format) {
    return DimensionSpec.builder("customers").column("customer_id", ColumnType.LONG)
        .column("amount", amount).column("seq", ColumnType.LONG)
        .key("customer_id").sequence("seq").outputFormat(format).build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widenings")
  void shouldReadVersionRecordsWrittenBeforeTheWideningAsTheWiderType(ColumnType narrow, ColumnType wide,
      Object written, Object read) {
    for (OutputFormat format : OutputFormat.values()) {
      Version before = new Version(BusinessKey.of(1L), Sequence.of(10), Sequence.of(20), Arrays.asList(written));
      byte[] key = VersionRecordCodec.forSpec(spec(narrow, format)).encodeKey(before.key(), before.validFrom());
      byte[] value = VersionRecordCodec.forSpec(spec(narrow, format)).encodeValue(before, ChangeKind.CLOSE);

      VersionChange change = VersionRecordCodec.forSpec(spec(wide, format)).decodeChange(key, value);

      assertThat(change).as(format.name()).isInstanceOfSatisfying(VersionChange.Upsert.class,
          u -> assertThat(u.version().attributes()).containsExactly(read));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widenings")
  void shouldReadStoredEventsWrittenBeforeTheWideningAsTheWiderType(ColumnType narrow, ColumnType wide,
      Object written, Object read) {
    ChangeEvent event = ChangeEvent.upsert(BusinessKey.of(1L), Sequence.of(10), List.of(written));
    byte[] bytes = new EventJson(spec(narrow, OutputFormat.JSON)).encodeEvent(event);

    ChangeEvent decoded = new EventJson(spec(wide, OutputFormat.JSON)).decodeEvent(BusinessKey.of(1L), bytes);

    assertThat(decoded.attributes()).containsExactly(read);
  }
}
