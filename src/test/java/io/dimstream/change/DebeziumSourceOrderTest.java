package io.dimstream.change;

import static io.dimstream.change.TestSpecs.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Debezium events ordered by the source block's commit positions, per connector. */
class DebeziumSourceOrderTest {

  static DimensionSpec spec(String connector) {
    try {
      return DimensionSpecLoader.parse(new ObjectMapper().readTree(("{'name': 'customers', 'format': 'debezium-json',"
          + " 'debezium': {'connector': '" + connector + "'}, 'columns': {'customer_id': 'long', 'city': 'string'},"
          + " 'key': ['customer_id']}").replace('\'', '"')), null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String envelope(String op, String source) {
    String row = "{'customer_id': 7, 'city': 'Oslo'}";
    return "{'op': '" + op + "', 'ts_ms': 1772352000000, " + ("d".equals(op) ? "'before': " + row
        : "'after': " + row) + ", 'source': " + source + "}";
  }

  private static Sequence sequence(DimensionSpec spec, String op, String source) {
    return JsonChangeDecoderTest.accepted(ChangeDecoder.forSpec(spec).decode(null, json(envelope(op, source)), -1))
        .sequence();
  }

  static Stream<Arguments> positions() {
    return Stream.of(
        arguments("postgresql lsn", "postgresql", "u", "{'connector': 'postgresql', 'lsn': 33000111}",
            new long[] {33000111}),
        arguments("postgresql lsn as text", "postgresql", "u", "{'connector': 'postgresql', 'lsn': '33000111'}",
            new long[] {33000111}),
        arguments("postgresql delete", "postgresql", "d", "{'connector': 'postgresql', 'lsn': 33000200}",
            new long[] {33000200}),
        arguments("mysql binlog position", "mysql", "u",
            "{'connector': 'mysql', 'file': 'mysql-bin.000003', 'pos': 154, 'row': 2}", new long[] {3, 154, 2}),
        arguments("mysql snapshot without row", "mysql", "r",
            "{'connector': 'mysql', 'file': 'binlog.000012', 'pos': 4}", new long[] {12, 4, 0}),
        arguments("oracle scn as text", "oracle", "u",
            "{'connector': 'oracle', 'commit_scn': '2890372', 'scn': '2890370'}", new long[] {2890372, 2890370}),
        arguments("mongodb oplog time and ordinal", "mongodb", "u",
            "{'connector': 'mongodb', 'ts_ms': 1772352000000, 'ord': 3}",
            new long[] {1_772_352_000_000_000L, 3}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("positions")
  void shouldReadTheSequenceFromTheSourceBlock(String name, String connector, String op, String source,
      long[] expected) {
    assertThat(sequence(spec(connector), op, source)).isEqualTo(Sequence.of(expected));
  }

  @Test
  void shouldOrderSqlServerLsnsAsTheServerDoes() {
    DimensionSpec spec = spec("sqlserver");
    String[] ascending = {"00000027:00000758:0005", "00000027:00000758:0006", "00000027:00000759:0000",
        "00000028:00000000:0001", "007fffff:00ffffff:ffff"};
    Sequence previous = null;
    for (String lsn : ascending) {
      Sequence s = sequence(spec, "u", "{'connector': 'sqlserver', 'commit_lsn': '" + lsn + "', 'change_lsn': '"
          + lsn + "', 'event_serial_no': 1}");
      if (previous != null) {
        assertThat(s).as(lsn).isGreaterThan(previous);
      }
      previous = s;
    }
  }

  @Test
  void shouldSortASqlServerSnapshotRowBeforeChangesAtItsCommitLsn() {
    DimensionSpec spec = spec("sqlserver");
    Sequence snapshot = sequence(spec, "r", "{'connector': 'sqlserver', 'commit_lsn': '00000027:00000758:0005',"
        + " 'change_lsn': null, 'event_serial_no': null}");
    Sequence change = sequence(spec, "u", "{'connector': 'sqlserver', 'commit_lsn': '00000027:00000758:0005',"
        + " 'change_lsn': '00000027:00000750:0002', 'event_serial_no': 1}");

    assertThat(snapshot).isLessThan(change);
  }

  static Stream<Arguments> rejected() {
    return Stream.of(
        arguments("mysql event under a postgresql spec", "postgresql",
            "{'connector': 'mysql', 'file': 'mysql-bin.000003', 'pos': 154}", RejectReason.MISSING_SEQUENCE,
            new String[] {"'source.lsn'", "\"mysql\""}),
        arguments("binlog file without index", "mysql", "{'connector': 'mysql', 'file': 'binlog', 'pos': 1, 'row': 0}",
            RejectReason.BAD_TYPE, new String[] {"'source.file'", "mysql-bin.000003"}),
        arguments("malformed LSN", "sqlserver",
            "{'connector': 'sqlserver', 'commit_lsn': '27:758:5', 'change_lsn': '27:758:5', 'event_serial_no': 1}",
            RejectReason.BAD_TYPE, new String[] {"'source.commit_lsn'", "0000002b:00000358:0003"}),
        arguments("LSN beyond the packable range", "sqlserver", "{'connector': 'sqlserver', 'commit_lsn':"
            + " '00800000:00000000:0000', 'change_lsn': '00000001:00000000:0000', 'event_serial_no': 1}",
            RejectReason.BAD_TYPE, new String[] {"'source.commit_lsn'", "7fffff", "source.ts_ms"}),
        arguments("lsn that is not a number", "postgresql", "{'connector': 'postgresql', 'lsn': '0/16B3748'}",
            RejectReason.BAD_TYPE, new String[] {"'source.lsn'", "long"}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejected")
  void shouldRejectAnEventWhoseSourceCannotOrderIt(String name, String connector, String source, String reason,
      String[] detailParts) {
    Decoded d = ChangeDecoder.forSpec(spec(connector)).decode(null, json(envelope("u", source)), -1);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(reason);
      assertThat(r.detail()).contains(detailParts).endsWith(".");
    });
  }

  @Test
  void shouldSkipATombstoneUnderDebeziumDeletes() {
    Decoded d = ChangeDecoder.forSpec(spec("postgresql")).decode(json("{'customer_id': 7}"), null, 0);

    assertThat(d).isInstanceOf(Decoded.Skipped.class);
  }

  @Test
  void shouldStillRejectATombstoneWhenDebeziumDeletesAreOff() {
    DimensionSpec spec = DimensionSpec.builder("customers").column("customer_id", "long").column("lsn", "long")
        .key("customer_id").sequence("lsn").inputFormat(io.dimstream.spec.InputFormat.DEBEZIUM_JSON).build();

    Decoded d = ChangeDecoder.forSpec(spec).decode(json("{'customer_id': 7}"), null, 0);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class,
        r -> assertThat(r.reason()).isEqualTo(RejectReason.TOMBSTONE_NOT_A_DELETE));
  }
}
