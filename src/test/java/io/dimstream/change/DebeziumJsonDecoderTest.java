package io.dimstream.change;

import static io.dimstream.change.JsonChangeDecoderTest.accepted;
import static io.dimstream.change.TestSpecs.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DebeziumJsonDecoderTest {
  private static final String AFTER = "{'customer_id':42,'name':'Ada','email':'ada@example.com','city':'Lisbon',"
      + "'tier':'gold'}";
  private static final String SOURCE = "{'connector':'postgresql','db':'shop','table':'customers','lsn':%d,"
      + "'ts_ms':1}";

  private final ChangeDecoder decoder = ChangeDecoder.forSpec(TestSpecs.debezium());

  private static String envelope(String op, String before, String after, long tsMillis, long lsn) {
    return "{'before':" + before + ",'after':" + after + ",'source':" + SOURCE.formatted(lsn) + ",'op':'" + op
        + "','ts_ms':" + tsMillis + ",'transaction':null}";
  }

  @ParameterizedTest(name = "op {0}")
  @ValueSource(strings = {"c", "u", "r"})
  void shouldUpsertFromAfterWithTheSequenceFromTheEnvelope(String op) {
    ChangeEvent e = accepted(decoder.decode(null, json(envelope(op, "null", AFTER, 1_772_352_000_000L, 7)), 0));

    assertThat(e).isEqualTo(ChangeEvent.upsert(BusinessKey.of(42L), Sequence.of(TestSpecs.MAR_1_0800_MICROS),
        java.util.List.of("Ada", "ada@example.com", "Lisbon", "gold")));
  }

  @Test
  void shouldDeleteTheKeyOfBeforeForOpD() {
    ChangeEvent e = accepted(decoder.decode(null, json(envelope("d", AFTER, "null", 1_772_352_000_000L, 7)), 0));

    assertThat(e).isEqualTo(ChangeEvent.delete(BusinessKey.of(42L), Sequence.of(TestSpecs.MAR_1_0800_MICROS)));
  }

  @Test
  void shouldUnwrapTheJsonConverterSchemaAndPayloadEnvelope() {
    String wrapped = "{'schema':{'type':'struct','optional':false},'payload':"
        + envelope("u", "null", AFTER, 1_772_352_000_000L, 7) + "}";

    assertThat(accepted(decoder.decode(null, json(wrapped), 0)).key()).isEqualTo(BusinessKey.of(42L));
  }

  @Test
  void shouldTakeTheSequenceFromSourceWhenTheEnvelopeTopLevelLacksIt() {
    ChangeDecoder lsn = ChangeDecoder.forSpec(TestSpecs.debeziumLsn());
    String after = "{'customer_id':42,'city':'Oslo','lsn':1}";

    ChangeEvent upsert = accepted(lsn.decode(null, json(envelope("u", "null", after, 5, 33_000_111)), 0));
    ChangeEvent delete = accepted(lsn.decode(null, json(envelope("d", after, "null", 5, 33_000_222)), 0));

    assertThat(upsert.sequence()).isEqualTo(Sequence.of(33_000_111));
    assertThat(upsert.attributes()).containsExactly("Oslo");
    assertThat(delete).isEqualTo(ChangeEvent.delete(BusinessKey.of(42L), Sequence.of(33_000_222)));
  }

  @Test
  void shouldTakeAnUpsertsSequenceFromTheRowButRejectADeleteWhoseSequenceIsOnlyInTheRow() {
    ChangeDecoder rowSeq = ChangeDecoder.forSpec(TestSpecs.debeziumRowSequence());
    String row = "{'customer_id':42,'city':'Oslo','updated_at':'2026-03-01T08:00:00Z'}";

    ChangeEvent upsert = accepted(rowSeq.decode(null, json(envelope("u", "null", row, 5, 1)), 0));
    Decoded delete = rowSeq.decode(null, json(envelope("d", row, "null", 5, 1)), 0);

    assertThat(upsert.sequence()).isEqualTo(Sequence.of(TestSpecs.MAR_1_0800_MICROS));
    assertThat(delete).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(RejectReason.MISSING_SEQUENCE);
      assertThat(r.detail()).contains("'updated_at'", "envelope", "before");
    });
  }

  @Test
  void shouldRejectAnUpsertWithoutAfter() {
    Decoded d = decoder.decode(null, json(envelope("u", AFTER, "null", 5, 1)), 0);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(RejectReason.MISSING_KEY);
      assertThat(r.detail()).contains("'after'");
    });
  }

  @Test
  void shouldRejectTruncateAndMessageOps() {
    for (String op : new String[] {"t", "m", "U"}) {
      Decoded d = decoder.decode(null, json(envelope(op, "null", AFTER, 5, 1)), 0);
      assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
        assertThat(r.reason()).isEqualTo(RejectReason.UNKNOWN_DEBEZIUM_OP);
        assertThat(r.detail()).contains("'op'", "\"" + op + "\"");
      });
    }
  }
}
