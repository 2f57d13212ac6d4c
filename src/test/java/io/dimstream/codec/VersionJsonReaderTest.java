package io.dimstream.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class VersionJsonReaderTest {
  private static final DimensionSpec CUSTOMERS = DimensionSpec.builder("customers")
      .column("customer_id", ColumnType.LONG)
      .column("name", ColumnType.STRING)
      .column("active", ColumnType.BOOLEAN)
      .column("born", ColumnType.DATE)
      .column("seen", ColumnType.TIMESTAMP)
      .column("visits", ColumnType.INT)
      .column("updated_at", ColumnType.TIMESTAMP)
      .column("lsn", ColumnType.LONG)
      .key("customer_id").sequence("updated_at", "lsn").track("name")
      .output(new OutputColumns("from_ts", "to_ts", "current"))
      .build();
  private static final long T0 = Instant.parse("2024-01-01T06:00:00Z").toEpochMilli() * 1000;

  private final VersionJson json = new VersionJson(CUSTOMERS);

  @Test
  void shouldDecodeWhatItWroteExactlyAsTheTreePathDoes() {
    Random random = new Random(7);
    for (int i = 0; i < 2_000; i++) {
      Sequence from = Sequence.of(T0 + random.nextInt(1_000_000) * 1000L, random.nextInt(50));
      Sequence to = random.nextBoolean() ? null : Sequence.of(from.first() + 1000, random.nextInt(50) - 25);
      Version v = new Version(BusinessKey.of(random.nextLong()), from, to, Arrays.asList(
          random.nextInt(5) == 0 ? null : "n\u00e9 \"" + random.nextInt(),
          random.nextInt(3) == 0 ? null : random.nextBoolean(),
          random.nextInt(3) == 0 ? null : LocalDate.ofEpochDay(random.nextInt(40_000)),
          random.nextInt(3) == 0 ? null : Instant.ofEpochSecond(random.nextInt(2_000_000_000), 1000L * random.nextInt(1_000_000)),
          random.nextInt(3) == 0 ? null : random.nextInt()));
      ChangeKind kind = ChangeKind.values()[random.nextInt(3)];
      byte[] bytes = json.encodeValue(v, kind);

      VersionJson.Row expected = json.decodeValueTree(bytes);
      assertThat(expected).isEqualTo(new VersionJson.Row(v, kind));
      assertThat(reader().read(bytes)).as("record %d", i).isEqualTo(expected);
    }
  }

  @Test
  void shouldKeepTheSignOfANegativeZeroAndEveryDigitOfADecimal() {
    DimensionSpec prices = DimensionSpec.builder("prices")
        .column("sku", ColumnType.LONG)
        .column("ratio", ColumnType.DOUBLE)
        .column("price", ColumnType.decimal(12, 2))
        .column("updated_at", ColumnType.TIMESTAMP)
        .key("sku").sequence("updated_at").track("ratio", "price")
        .build();
    VersionJson pricesJson = new VersionJson(prices);
    for (double ratio : new double[] {-0.0, 0.0, 1.5, -2.25e-7, 1e300}) {
      Version v = new Version(BusinessKey.of(7L), Sequence.of(T0), null,
          Arrays.asList(ratio, new java.math.BigDecimal("1234567890.10")));

      Version back = pricesJson.decodeValue(pricesJson.encodeValue(v, ChangeKind.OPEN)).version();

      assertThat(Double.doubleToRawLongBits((Double) back.attributes().get(0))).as("ratio %s", ratio)
          .isEqualTo(Double.doubleToRawLongBits(ratio));
      assertThat(back.attributes().get(1)).isEqualTo(new java.math.BigDecimal("1234567890.10"));
    }
  }

  static Stream<Arguments> offShape() {
    return Stream.of(
        Arguments.of(Named.of("a fractional number", "{\"customer_id\":1.5,\"from_ts\":\"2024-01-01T06:00:00Z\","
            + "\"from_ts_lsn\":1,\"_change\":\"open\"}")),
        Arguments.of(Named.of("a nested value", "{\"customer_id\":1,\"name\":{\"a\":1},"
            + "\"from_ts\":\"2024-01-01T06:00:00Z\",\"from_ts_lsn\":1,\"_change\":\"open\"}")),
        Arguments.of(Named.of("no key", "{\"from_ts\":\"2024-01-01T06:00:00Z\",\"from_ts_lsn\":1,"
            + "\"_change\":\"open\"}")),
        Arguments.of(Named.of("half a valid_to", "{\"customer_id\":1,\"from_ts\":\"2024-01-01T06:00:00Z\","
            + "\"from_ts_lsn\":1,\"to_ts\":\"2024-01-02T06:00:00Z\",\"_change\":\"open\"}")),
        Arguments.of(Named.of("no change field", "{\"customer_id\":1,\"from_ts\":\"2024-01-01T06:00:00Z\","
            + "\"from_ts_lsn\":1}")),
        Arguments.of(Named.of("a bad type", "{\"customer_id\":\"x\",\"from_ts\":\"2024-01-01T06:00:00Z\","
            + "\"from_ts_lsn\":1,\"_change\":\"open\"}")),
        Arguments.of(Named.of("not an object", "[1,2]")),
        Arguments.of(Named.of("not JSON", "{\"customer_id\":")));
  }

  @ParameterizedTest
  @MethodSource("offShape")
  void shouldLeaveRecordsOffTheCommonShapeToTheTreePath(String value) {
    assertThat(reader().read(value.getBytes(StandardCharsets.UTF_8))).isNull();
  }

  @Test
  void shouldIgnoreUnknownFieldsAndTakeTheLastOfARepeatedOne() {
    String value = "{\"customer_id\":1,\"version_id\":99,\"name\":\"a\",\"name\":\"b\","
        + "\"from_ts\":\"2024-01-01T06:00:00Z\",\"from_ts_lsn\":1,\"to_ts\":null,\"_change\":\"open\"}";
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);

    assertThat(reader().read(bytes)).isEqualTo(json.decodeValueTree(bytes));
    assertThat(reader().read(bytes).version().attributes().get(0)).isEqualTo("b");
  }

  private static VersionJsonReader reader() {
    return VersionJsonReader.of(CUSTOMERS.keyColumns(), CUSTOMERS.attributeColumns(), CUSTOMERS.sequenceColumns(),
        java.util.List.of("from_ts", "from_ts_lsn"), java.util.List.of("to_ts", "to_ts_lsn"));
  }
}
