package io.dimstream.change;

import static io.dimstream.change.TestSpecs.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DeleteRule;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JsonChangeDecoderTest {
  private final ChangeDecoder customers = ChangeDecoder.forSpec(TestSpecs.customers());

  static ChangeEvent accepted(Decoded d) {
    assertThat(d).isInstanceOf(Decoded.Accepted.class);
    return ((Decoded.Accepted) d).event();
  }

  @Test
  void shouldDecodeUpsertWithAttributesInSpecOrderAndWithoutDeleteColumn() {
    ChangeEvent e = accepted(customers.decode(null, json(
        "{'op':'u','tier':'gold','city':'Lisbon','email':'ada@example.com','name':'Ada',"
            + "'updated_at':'2026-03-01T08:00:00Z','customer_id':42}"), 0));

    assertThat(e.key()).isEqualTo(BusinessKey.of(42L));
    assertThat(e.sequence()).isEqualTo(Sequence.of(TestSpecs.MAR_1_0800_MICROS));
    assertThat(e.delete()).isFalse();
    assertThat(e.attributes()).containsExactly("Ada", "ada@example.com", "Lisbon", "gold");
  }

  @Test
  void shouldReadMissingAttributesAsNullAndIgnoreUnknownFields() {
    ChangeEvent e = accepted(customers.decode(null, json(
        "{'customer_id':'42','updated_at':'2026-03-01T08:00:00Z','city':null,'loyalty_points':900,'tags':['x']}"), 0));

    assertThat(e.key()).isEqualTo(BusinessKey.of(42L));
    assertThat(e.attributes()).containsExactly(null, null, null, null);
  }

  @Test
  void shouldReadIsoTimestampsWithOffsetsAndEpochMillisAsTheSameInstant() {
    long[] sequences = {
        seq("'2026-03-01T08:00:00Z'"),
        seq("'2026-03-01T09:00:00+01:00'"),
        seq("'2026-03-01T03:00:00-05:00'"),
        seq("1772352000000"),
        seq("'1772352000000'"),
    };
    assertThat(sequences).containsOnly(TestSpecs.MAR_1_0800_MICROS);
  }

  @Test
  void shouldKeepSubMillisecondPrecisionOfIsoTimestamps() {
    assertThat(seq("'2026-03-01T08:00:00.000123Z'")).isEqualTo(TestSpecs.MAR_1_0800_MICROS + 123);
  }

  private long seq(String updatedAt) {
    return accepted(customers.decode(null, json("{'customer_id':1,'updated_at':" + updatedAt + "}"), 0))
        .sequence().first();
  }

  @Test
  void shouldDecodeCompositeKeyCompositeSequenceDecimalsAndDates() {
    ChangeDecoder accounts = ChangeDecoder.forSpec(TestSpecs.accounts());

    ChangeEvent e = accepted(accounts.decode(null, json(
        "{'region':'eu','account_no':7,'batch_date':'2026-03-01','lsn':123456789012,"
            + "'balance':1234567890.5,'opened_on':'2026-03-01','score':0.25,'active':'true'}"), 0));

    assertThat(e.key()).isEqualTo(BusinessKey.of("eu", 7));
    assertThat(e.sequence()).isEqualTo(Sequence.of(20513, 123456789012L));
    assertThat(e.attributes()).containsExactly(new BigDecimal("1234567890.50"), LocalDate.of(2026, 3, 1), 0.25, true);
  }

  @Test
  void shouldReadDecimalsExactlyFromNumbersAndStrings() {
    ChangeDecoder accounts = ChangeDecoder.forSpec(TestSpecs.accounts());
    String row = "{'region':'eu','account_no':7,'batch_date':20513,'lsn':1,'balance':%s}";

    assertThat(accepted(accounts.decode(null, json(row.formatted("9999999999.99")), 0)).attributes().get(0))
        .isEqualTo(new BigDecimal("9999999999.99"));
    assertThat(accepted(accounts.decode(null, json(row.formatted("'-0.1'")), 0)).attributes().get(0))
        .isEqualTo(new BigDecimal("-0.10"));
  }

  @Test
  void shouldOrderCompositeSequencesLeftToRight() {
    ChangeDecoder accounts = ChangeDecoder.forSpec(TestSpecs.accounts());
    Sequence earlierDayHigherLsn = accepted(accounts.decode(null,
        json("{'region':'eu','account_no':7,'batch_date':'2026-03-01','lsn':900}"), 0)).sequence();
    Sequence laterDayLowerLsn = accepted(accounts.decode(null,
        json("{'region':'eu','account_no':7,'batch_date':'2026-03-02','lsn':5}"), 0)).sequence();

    assertThat(earlierDayHigherLsn).isLessThan(laterDayLowerLsn);
  }

  @Test
  void shouldTreatColumnEqualsMatchAsDeleteAndOtherValuesAsUpserts() {
    ChangeEvent delete = accepted(customers.decode(null,
        json("{'customer_id':42,'updated_at':'2026-03-01T08:00:00Z','op':'d','city':'Lisbon'}"), 0));
    ChangeEvent upperCase = accepted(customers.decode(null,
        json("{'customer_id':42,'updated_at':'2026-03-01T08:00:00Z','op':'D'}"), 0));
    ChangeEvent noOp = accepted(customers.decode(null,
        json("{'customer_id':42,'updated_at':'2026-03-01T08:00:00Z'}"), 0));

    assertThat(delete.delete()).isTrue();
    assertThat(delete.key()).isEqualTo(BusinessKey.of(42L));
    assertThat(delete.attributes()).isEmpty();
    assertThat(upperCase.delete()).isFalse();
    assertThat(noOp.delete()).isFalse();
  }

  @Test
  void shouldTreatTrueBooleanColumnAsDelete() {
    ChangeDecoder d = ChangeDecoder.forSpec(TestSpecs.customersWith(new DeleteRule.BooleanColumn("is_deleted")));
    String row = "{'customer_id':42,'updated_at':'2026-03-01T08:00:00Z','is_deleted':%s}";

    assertThat(accepted(d.decode(null, json(row.formatted("true")), 0)).delete()).isTrue();
    assertThat(accepted(d.decode(null, json(row.formatted("false")), 0)).delete()).isFalse();
    assertThat(accepted(d.decode(null, json(row.formatted("null")), 0)).delete()).isFalse();
    assertThat(d.decode(null, json(row.formatted("'yes'")), 0))
        .isEqualTo(new Decoded.Rejected(RejectReason.BAD_TYPE,
            "Column 'is_deleted' must be a boolean: expected true or false, got \"yes\"."));
  }

  @Test
  void shouldNotTypeCheckAttributesOfADelete() {
    ChangeEvent e = accepted(customers.decode(null,
        json("{'customer_id':42,'updated_at':'2026-03-01T08:00:00Z','op':'d','city':{'nested':1}}"), 0));
    assertThat(e.delete()).isTrue();
  }

  @Test
  void shouldDeleteTheRecordKeysBusinessKeyAtTheRecordTimestampForATombstone() {
    ChangeDecoder d = ChangeDecoder.forSpec(TestSpecs.customersWith(new DeleteRule.Tombstone()));
    long tsMillis = 1_772_352_000_000L;

    assertThat(accepted(d.decode(json("{'customer_id':42}"), null, tsMillis)))
        .isEqualTo(ChangeEvent.delete(BusinessKey.of(42L), Sequence.of(TestSpecs.MAR_1_0800_MICROS)));
    assertThat(accepted(d.decode(json("42"), null, tsMillis)).key()).isEqualTo(BusinessKey.of(42L));
    assertThat(accepted(d.decode(json("'42'"), null, tsMillis)).key()).isEqualTo(BusinessKey.of(42L));
  }

  @Test
  void shouldPreferSequenceColumnsInTheTombstoneKeyOverTheRecordTimestamp() {
    ChangeDecoder d = ChangeDecoder.forSpec(TestSpecs.customersWith(new DeleteRule.Tombstone()));

    ChangeEvent e = accepted(d.decode(json("{'customer_id':42,'updated_at':'2026-03-01T09:00:00+01:00'}"), null,
        999L));

    assertThat(e.sequence()).isEqualTo(Sequence.of(TestSpecs.MAR_1_0800_MICROS));
    assertThat(e.delete()).isTrue();
  }

  @Test
  void shouldTakeACompositeTombstoneKeyAndSequenceFromTheKeyObject() {
    ChangeDecoder d = ChangeDecoder.forSpec(io.dimstream.spec.DimensionSpec.builder("accounts")
        .column("region", "string").column("account_no", "int").column("batch_date", "date").column("lsn", "long")
        .key("region", "account_no").sequence("batch_date", "lsn").delete(new DeleteRule.Tombstone()).build());

    ChangeEvent e = accepted(d.decode(json("{'region':'eu','account_no':7,'batch_date':'2026-03-01','lsn':9}"),
        null, 0));
    Decoded noSequence = d.decode(json("{'region':'eu','account_no':7}"), null, 1_772_352_000_000L);
    Decoded scalarKey = d.decode(json("'eu'"), null, 0);

    assertThat(e).isEqualTo(ChangeEvent.delete(BusinessKey.of("eu", 7), Sequence.of(20513, 9)));
    assertThat(((Decoded.Rejected) noSequence).reason()).isEqualTo(RejectReason.MISSING_SEQUENCE);
    assertThat(((Decoded.Rejected) scalarKey).reason()).isEqualTo(RejectReason.MISSING_KEY);
  }

  @Test
  void shouldReadAPlainStringRecordKeyOfAStringKeyedTombstone() {
    ChangeDecoder d = ChangeDecoder.forSpec(io.dimstream.spec.DimensionSpec.builder("products")
        .column("sku", "string").column("price", "double").column("changed_at", "timestamp")
        .key("sku").sequence("changed_at").delete(new DeleteRule.Tombstone()).build());

    assertThat(accepted(d.decode(TestSpecs.utf8("SKU-1 blue"), null, 5)))
        .isEqualTo(ChangeEvent.delete(BusinessKey.of("SKU-1 blue"), Sequence.of(5000)));
  }

  @Test
  void shouldAcceptOrdinaryRecordsAsUpsertsUnderTheTombstoneRule() {
    ChangeDecoder d = ChangeDecoder.forSpec(TestSpecs.customersWith(new DeleteRule.Tombstone()));

    ChangeEvent e = accepted(d.decode(null, json("{'customer_id':42,'updated_at':0,'op':'d','city':'Oslo'}"), 0));

    assertThat(e.delete()).isFalse();
    assertThat(Arrays.asList(e.attributes().toArray())).contains("d", "Oslo");
  }
}
