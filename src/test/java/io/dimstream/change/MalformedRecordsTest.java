package io.dimstream.change;

import static io.dimstream.change.TestSpecs.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of bad record maps onto its stable reason, with a detail naming what is wrong. */
class MalformedRecordsTest {
  private static final DimensionSpec CUSTOMERS = TestSpecs.customers();
  private static final String OK = "{'customer_id':42,'updated_at':'2026-03-01T08:00:00Z'}";
  private static final byte[] GOOD_AVRO =
      AvroChangeDecoderTest.customerChange(42, "Lisbon", "u", TestSpecs.MAR_1_0800_MICROS);

  static Stream<Arguments> malformedRecords() {
    DimensionSpec debezium = TestSpecs.debezium();
    DimensionSpec avro = AvroChangeDecoderTest.CUSTOMERS;
    return Stream.of(
        bad("broken JSON", CUSTOMERS, null, json("{'customer_id':42,'updated_at':"),
            RejectReason.MALFORMED_JSON, "line 1"),
        bad("not JSON at all", CUSTOMERS, null, TestSpecs.utf8("customer_id=42"), RejectReason.MALFORMED_JSON, "JSON"),
        bad("trailing bytes after the object", CUSTOMERS, null, json(OK + " x"), RejectReason.MALFORMED_JSON,
            "nothing after it"),
        bad("second object after the first", CUSTOMERS, null, json(OK + OK), RejectReason.MALFORMED_JSON,
            "more JSON follows the end of the object"),
        bad("array instead of an object", CUSTOMERS, null, json("[" + OK + "]"), RejectReason.MALFORMED_JSON,
            "an array"),
        bad("empty value", CUSTOMERS, null, new byte[0], RejectReason.MALFORMED_JSON, "empty"),
        bad("missing key", CUSTOMERS, null, json("{'updated_at':'2026-03-01T08:00:00Z','city':'Oslo'}"),
            RejectReason.MISSING_KEY, "'customer_id'"),
        bad("null key", CUSTOMERS, null, json("{'customer_id':null,'updated_at':'2026-03-01T08:00:00Z'}"),
            RejectReason.MISSING_KEY, "'customer_id'"),
        bad("missing sequence", CUSTOMERS, null, json("{'customer_id':42,'city':'Oslo'}"),
            RejectReason.MISSING_SEQUENCE, "'updated_at'"),
        bad("null sequence", CUSTOMERS, null, json("{'customer_id':42,'updated_at':null}"),
            RejectReason.MISSING_SEQUENCE, "'updated_at'"),
        bad("wrong key type", CUSTOMERS, null, json("{'customer_id':'forty-two','updated_at':0}"),
            RejectReason.BAD_TYPE, "Column 'customer_id' must be a long", "\"forty-two\""),
        bad("timestamp without offset", CUSTOMERS, null,
            json("{'customer_id':42,'updated_at':'2026-03-01T08:00:00'}"), RejectReason.BAD_TYPE,
            "Column 'updated_at' must be a timestamp", "2026-03-01T08:00:00"),
        bad("object in a string attribute", CUSTOMERS, null, json(OK.replace("}", ",'city':{'name':'Oslo'}}")),
            RejectReason.BAD_TYPE, "Column 'city' must be a string"),
        bad("decimal with too many places", TestSpecs.accounts(), null,
            json("{'region':'eu','account_no':1,'batch_date':1,'lsn':1,'balance':1.234}"), RejectReason.BAD_TYPE,
            "Column 'balance' must be a decimal(12,2)", "1.234"),
        bad("unknown Debezium op", debezium, null,
            json("{'before':null,'after':{'customer_id':42},'op':'x','ts_ms':1}"), RejectReason.UNKNOWN_DEBEZIUM_OP,
            "'op'", "\"x\""),
        bad("Debezium envelope without op", debezium, null, json("{'after':{'customer_id':42},'ts_ms':1}"),
            RejectReason.UNKNOWN_DEBEZIUM_OP, "'op'"),
        bad("broken Debezium JSON", debezium, null, json("{'op':'c',"), RejectReason.MALFORMED_JSON,
            "Debezium envelope"),
        bad("wrong Avro bytes (JSON text)", avro, null, json(OK), RejectReason.MALFORMED_AVRO, "Avro field"),
        bad("Avro bytes with a trailing byte", avro, null, append(GOOD_AVRO, (byte) 0), RejectReason.MALFORMED_AVRO,
            "ends at byte"),
        bad("short Avro bytes", avro, null, java.util.Arrays.copyOf(GOOD_AVRO, 3), RejectReason.MALFORMED_AVRO,
            "Avro field 'name'", "bytes left"),
        bad("tombstone without tombstone rule", CUSTOMERS, json("{'customer_id':42}"), null,
            RejectReason.TOMBSTONE_NOT_A_DELETE, "delete: tombstone"),
        // under delete: debezium a tombstone is skipped (DebeziumSourceOrderTest); with deletes off it is rejected
        bad("Debezium tombstone with deletes off", DimensionSpec.builder("customers").column("customer_id", "long")
            .column("ts_ms", "timestamp").key("customer_id").sequence("ts_ms")
            .inputFormat(io.dimstream.spec.InputFormat.DEBEZIUM_JSON).build(), json("{'customer_id':42}"), null,
            RejectReason.TOMBSTONE_NOT_A_DELETE, "tombstones.on.delete=false"),
        bad("tombstone without record key", TestSpecs.customersWith(new io.dimstream.spec.DeleteRule.Tombstone()),
            null, null, RejectReason.MISSING_KEY, "record key"),
        bad("tombstone without record timestamp", TestSpecs.customersWith(
            new io.dimstream.spec.DeleteRule.Tombstone()), json("42"), null, RejectReason.MISSING_SEQUENCE,
            "[updated_at]"));
  }

  private static Arguments bad(String name, DimensionSpec spec, byte[] key, byte[] value, String reason,
      String... detailParts) {
    return Arguments.of(Named.of(name, spec), key, value, reason, detailParts);
  }

  private static byte[] append(byte[] bytes, byte b) {
    byte[] out = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    out[bytes.length] = b;
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedRecords")
  void shouldRejectWithItsReasonAndADetailNamingTheField(DimensionSpec spec, byte[] key, byte[] value,
      String reason, String[] detailParts) {
    Decoded d = ChangeDecoder.forSpec(spec).decode(key, value, -1);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(reason);
      assertThat(r.detail()).contains(detailParts).endsWith(".");
      assertThat(DeadLetters.headers(r)).containsExactly(
          org.assertj.core.api.Assertions.entry("dimstream.error", reason),
          org.assertj.core.api.Assertions.entry("dimstream.error.detail", r.detail()));
    });
  }
}
