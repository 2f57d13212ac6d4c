package io.dimstream.codec;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.VersionId;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.types.ColumnType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class VersionJsonTest {
  private static final DimensionSpec CUSTOMERS = DimensionSpec.builder("customers")
      .column("customer_id", ColumnType.LONG)
      .column("name", ColumnType.STRING)
      .column("city", ColumnType.STRING)
      .column("updated_at", ColumnType.TIMESTAMP)
      .column("op", ColumnType.STRING)
      .key("customer_id").sequence("updated_at").track("city")
      .delete(new DeleteRule.ColumnEquals("op", "d"))
      .build();

  private static final DimensionSpec ALL_TYPES = DimensionSpec.builder("things")
      .column("region", ColumnType.STRING)
      .column("id", ColumnType.INT)
      .column("price", ColumnType.decimal(10, 2))
      .column("weight", ColumnType.DOUBLE)
      .column("active", ColumnType.BOOLEAN)
      .column("born", ColumnType.DATE)
      .column("seen", ColumnType.TIMESTAMP)
      .column("day", ColumnType.DATE)
      .column("lsn", ColumnType.LONG)
      .key("region", "id").sequence("day", "lsn")
      .output(new OutputColumns("from_ts", "to_ts", "current"))
      .build();

  private static final long JAN1_6AM_MICROS = Instant.parse("2024-01-01T06:00:00Z").toEpochMilli() * 1000;

  @Test
  void shouldWriteKeyAndRowWithSpecColumnNamesAndIsoTimestamps() {
    VersionJson json = new VersionJson(CUSTOMERS);
    Version v = new Version(BusinessKey.of(42L), Sequence.of(JAN1_6AM_MICROS), null, Arrays.asList("Ann", "Oslo"));

    assertThat(new String(json.encodeKey(v.key(), v.validFrom()), StandardCharsets.UTF_8))
        .isEqualTo("{\"customer_id\":42,\"valid_from\":\"2024-01-01T06:00:00Z\"}");
    assertThat(new String(json.encodeValue(v, ChangeKind.OPEN), StandardCharsets.UTF_8))
        .isEqualTo("{\"customer_id\":42,\"name\":\"Ann\",\"city\":\"Oslo\",\"valid_from\":\"2024-01-01T06:00:00Z\","
            + "\"valid_to\":null,\"is_current\":true,\"_change\":\"open\"}");
    assertThat(json.replayLine(v.closedAt(Sequence.of(JAN1_6AM_MICROS + 1_500_000))))
        .isEqualTo("{\"customer_id\":42,\"name\":\"Ann\",\"city\":\"Oslo\",\"valid_from\":\"2024-01-01T06:00:00Z\","
            + "\"valid_to\":\"2024-01-01T06:00:01.500Z\",\"is_current\":false}");
  }

  @Test
  void shouldRoundTripEveryColumnTypeAndCompositeSequence() {
    VersionJson json = new VersionJson(ALL_TYPES);
    BusinessKey key = BusinessKey.of("eu", 7);
    Version open = new Version(key, Sequence.of(19_000, 5), null, Arrays.asList(new BigDecimal("12.50"), 0.1,
        true, LocalDate.of(1990, 5, 17), Instant.parse("2024-02-03T04:05:06.123456Z")));
    Version closed = new Version(key, Sequence.of(19_000, 5), Sequence.of(19_001, -3),
        Arrays.asList(null, null, null, null, null));

    for (Version v : new Version[] {open, closed}) {
      for (ChangeKind kind : new ChangeKind[] {ChangeKind.OPEN, ChangeKind.CLOSE, ChangeKind.CORRECT}) {
        assertThat(json.decodeValue(json.encodeValue(v, kind))).isEqualTo(new VersionJson.Row(v, kind));
      }
      assertThat(json.decodeKey(json.encodeKey(v.key(), v.validFrom()))).isEqualTo(new VersionId(key, v.validFrom()));
    }
  }

  @Test
  void shouldNameExtraValidityColumnsOfCompositeSequence() {
    VersionJson json = new VersionJson(ALL_TYPES);
    Version v = new Version(BusinessKey.of("eu", 7), Sequence.of(19_000, 5), Sequence.of(19_001, 2),
        Arrays.asList(null, null, null, null, null));

    assertThat(new String(json.encodeKey(v.key(), v.validFrom()), StandardCharsets.UTF_8))
        .isEqualTo("{\"region\":\"eu\",\"id\":7,\"from_ts\":\"2022-01-08\",\"from_ts_lsn\":5}");
    assertThat(json.replayLine(v)).isEqualTo("{\"region\":\"eu\",\"id\":7,\"price\":null,\"weight\":null,"
        + "\"active\":null,\"born\":null,\"seen\":null,\"from_ts\":\"2022-01-08\",\"to_ts\":\"2022-01-09\","
        + "\"from_ts_lsn\":5,\"to_ts_lsn\":2,\"current\":false}");
  }

  @Test
  void shouldRefuseToRenderRetractionAsRow() {
    VersionJson json = new VersionJson(CUSTOMERS);
    Version v = new Version(BusinessKey.of(1L), Sequence.of(1), null, Arrays.asList("a", "b"));

    assertThatThrownBy(() -> json.encodeValue(v, ChangeKind.RETRACT)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> json.decodeValue(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> json.decodeValue("{\"customer_id\":1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldDecodeRecordsIntoVersionChanges() {
    VersionJson json = new VersionJson(CUSTOMERS);
    Version v = new Version(BusinessKey.of(42L), Sequence.of(JAN1_6AM_MICROS), Sequence.of(JAN1_6AM_MICROS + 1),
        Arrays.asList(null, "Oslo"));
    byte[] key = json.encodeKey(v.key(), v.validFrom());

    assertThat(json.decodeChange(key, json.encodeValue(v, ChangeKind.CLOSE)))
        .isEqualTo(new VersionChange.Upsert(v, ChangeKind.CLOSE));
    assertThat(json.decodeChange(key, null)).isEqualTo(new VersionChange.Retraction(v.key(), v.validFrom()));
  }
}
