package io.dimstream.change;

import static io.dimstream.change.TestSpecs.json;
import static io.dimstream.change.TestSpecs.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Text that is not Unicode is {@code bad-encoding}; values at the edge of their types are {@code bad-type}. */
class TextAndEdgeValuesTest {
  private static final String TS_MAX = "+294247-01-10T04:00:54.775807Z";

  /** A customers record whose name field holds {@code nameBytes} raw; everything else is valid. */
  private static byte[] customerWithName(byte... nameBytes) {
    byte[] head = utf8("{\"customer_id\": 907, \"name\": \"");
    byte[] tail = utf8("\", \"city\": \"Oslo\", \"updated_at\": \"2026-03-01T08:00:00Z\"}");
    byte[] out = new byte[head.length + nameBytes.length + tail.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(nameBytes, 0, out, head.length, nameBytes.length);
    System.arraycopy(tail, 0, out, head.length + nameBytes.length, tail.length);
    return out;
  }

  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  private static byte[] customer(String updatedAt) {
    return json("{'customer_id': 1, 'city': 'Oslo', 'updated_at': " + updatedAt + "}");
  }

  private static byte[] account(String field, String value) {
    String base = "{'region': 'eu', 'account_no': 7, 'batch_date': '2026-03-01', 'lsn': 5, '" + field + "': " + value
        + "}";
    return json(base);
  }

  static Stream<Arguments> rejected() {
    DimensionSpec customers = TestSpecs.customers();
    DimensionSpec accounts = TestSpecs.accounts();
    // the name field starts at byte 30 of customerWithName(...)
    return Stream.of(
        arguments("lone high surrogate escape", customers,
            json("{'customer_id': 907, 'name': '\\ud800', 'updated_at': '2026-03-01T08:00:00Z'}"),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "\\ud800", "byte 29"}),
        arguments("lone low surrogate escape", customers,
            json("{'customer_id': 907, 'name': 'a\\uDC00b', 'updated_at': '2026-03-01T08:00:00Z'}"),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "\\udc00", "character 1"}),
        arguments("surrogates in the wrong order", customers,
            json("{'customer_id': 907, 'name': '\\ude00\\ud83d', 'updated_at': '2026-03-01T08:00:00Z'}"),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "\\ude00"}),
        arguments("overlong slash C0 AF", customers, customerWithName(bytes(0x41, 0xC0, 0xAF)),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "byte 31", "C0 AF"}),
        arguments("overlong 3-byte E0 80 AF", customers, customerWithName(bytes(0xE0, 0x80, 0xAF)),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "byte 30", "E0 80"}),
        arguments("UTF-8 encoded surrogate ED A0 80", customers, customerWithName(bytes(0xED, 0xA0, 0x80)),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "byte 30", "ED"}),
        arguments("truncated sequence", customers, customerWithName(bytes(0xE2, 0x82)),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "byte 30", "E2"}),
        arguments("invalid byte FF", customers, customerWithName(bytes(0xFF)),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "byte 30", "FF"}),
        arguments("above U+10FFFF", customers, customerWithName(bytes(0xF4, 0x90, 0x80, 0x80)),
            RejectReason.BAD_ENCODING, new String[] {"'/name'", "byte 30", "F4 90"}),
        arguments("Debezium lone surrogate", TestSpecs.debezium(),
            json("{'op': 'u', 'ts_ms': 1772352000000, 'after': {'customer_id': 1, 'name': '\\ud800'}}"),
            RejectReason.BAD_ENCODING, new String[] {"'/after/name'", "\\ud800"}),
        arguments("timestamp of Long.MAX_VALUE millis", customers, customer("9223372036854775807"),
            RejectReason.BAD_TYPE, new String[] {"'updated_at'", TS_MAX}),
        arguments("timestamp of Long.MIN_VALUE millis as text", customers, customer("'-9223372036854775808'"),
            RejectReason.BAD_TYPE, new String[] {"'updated_at'", "-290308-12-21T19:59:05.224192Z", TS_MAX}),
        arguments("timestamp beyond long millis", customers, customer("99999999999999999999"),
            RejectReason.BAD_TYPE, new String[] {"'updated_at'", TS_MAX}),
        arguments("timestamp beyond long millis as text", customers, customer("'99999999999999999999'"),
            RejectReason.BAD_TYPE, new String[] {"'updated_at'", TS_MAX}),
        arguments("ISO timestamp in year 999999999", customers, customer("'+999999999-12-31T23:59:59Z'"),
            RejectReason.BAD_TYPE, new String[] {"'updated_at'", TS_MAX}),
        arguments("ISO timestamp one microsecond past the range", customers,
            customer("'+294247-01-10T04:00:54.775808Z'"), RejectReason.BAD_TYPE, new String[] {"'updated_at'"}),
        arguments("date in year 999999999", accounts, account("batch_date", "'+999999999-12-31'"),
            RejectReason.BAD_TYPE, new String[] {"'batch_date'", "-5877641-06-23", "+5881580-07-11"}),
        arguments("epoch day beyond int", accounts, account("opened_on", "9999999999"),
            RejectReason.BAD_TYPE, new String[] {"'opened_on'", "+5881580-07-11"}),
        arguments("epoch day beyond long", accounts, account("opened_on", "99999999999999999999"),
            RejectReason.BAD_TYPE, new String[] {"'opened_on'", "+5881580-07-11"}),
        arguments("int one past its range", accounts, account("account_no", "2147483648"),
            RejectReason.BAD_TYPE, new String[] {"'account_no'", "int"}),
        arguments("long one past its range", accounts, account("lsn", "9223372036854775808"),
            RejectReason.BAD_TYPE, new String[] {"'lsn'", "long"}),
        arguments("decimal with a huge exponent", accounts, account("balance", "1e999999999"),
            RejectReason.BAD_TYPE, new String[] {"'balance'", "10 digits before the decimal point"}),
        arguments("decimal with a tiny exponent", accounts, account("balance", "'1e-999999999'"),
            RejectReason.BAD_TYPE, new String[] {"'balance'", "2 decimal places"}),
        arguments("decimal one digit too many", accounts, account("balance", "12345678901.5"),
            RejectReason.BAD_TYPE, new String[] {"'balance'", "decimal(12,2)"}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejected")
  void shouldRejectWithTheReasonAndADetailNamingFieldAndPlace(String name, DimensionSpec spec, byte[] value,
      String reason, String[] detailParts) {
    long start = System.nanoTime();
    Decoded d = ChangeDecoder.forSpec(spec).decode(null, value, -1);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(reason);
      assertThat(r.detail()).contains(detailParts).endsWith(".");
    });
    // an edge value is refused by looking at it, never by computing with it
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  static Stream<Arguments> acceptedEdges() {
    return Stream.of(
        arguments("a surrogate pair escape", TestSpecs.customers(),
            json("{'customer_id': 1, 'name': '\\ud83d\\ude00', 'updated_at': '2026-03-01T08:00:00Z'}"), "\ud83d\ude00"),
        arguments("raw 4-byte UTF-8", TestSpecs.customers(),
            json("{'customer_id': 1, 'name': 'Å\ud83d\ude00ß', 'updated_at': '2026-03-01T08:00:00Z'}"),
            "Å\ud83d\ude00ß"),
        arguments("an escaped backslash before ud800 text", TestSpecs.customers(),
            json("{'customer_id': 1, 'name': '\\\\ud800', 'updated_at': '2026-03-01T08:00:00Z'}"), "\\ud800"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("acceptedEdges")
  void shouldAcceptWellFormedText(String name, DimensionSpec spec, byte[] value, String expectedName) {
    ChangeEvent e = JsonChangeDecoderTest.accepted(ChangeDecoder.forSpec(spec).decode(null, value, -1));

    assertThat(e.attributes().get(0)).isEqualTo(expectedName);
  }

  @Test
  void shouldAcceptTheLastTimestampAColumnHolds() {
    ChangeEvent e = JsonChangeDecoderTest.accepted(ChangeDecoder.forSpec(TestSpecs.customers())
        .decode(null, customer("'" + TS_MAX + "'"), -1));

    assertThat(e.sequence().parts()[0]).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void shouldRejectMalformedUtf8InAnAvroStringAsBadEncoding() {
    byte[] value = AvroChangeDecoderTest.customerChange(42, "L//", "u", TestSpecs.MAR_1_0800_MICROS);
    int at = indexOf(value, "//".getBytes(StandardCharsets.US_ASCII));
    value[at] = (byte) 0xC0;
    value[at + 1] = (byte) 0xAF;

    Decoded d = ChangeDecoder.forSpec(AvroChangeDecoderTest.CUSTOMERS).decode(null, value, -1);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(RejectReason.BAD_ENCODING);
      assertThat(r.detail()).contains("'city'", "byte " + at, "C0 AF");
    });
  }

  @Test
  void shouldRejectAnAvroTimestampMillisBeyondTheMicrosecondRangeAsBadType() {
    Schema schema = new Schema.Parser().parse("""
        {"type": "record", "name": "T", "fields": [{"name": "id", "type": "long"},
          {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}]}""");
    DimensionSpec spec = DimensionSpec.builder("t").inputFormat(InputFormat.AVRO).avroSchema(schema.toString())
        .column("id", "long").column("at", "timestamp").key("id").sequence("at").build();
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", 1L);
    r.put("at", Long.MAX_VALUE);

    Decoded d = ChangeDecoder.forSpec(spec).decode(null, AvroChangeDecoderTest.write(schema, r), -1);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, rej -> {
      assertThat(rej.reason()).isEqualTo(RejectReason.BAD_TYPE);
      assertThat(rej.detail()).contains("'at'", TS_MAX);
    });
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
