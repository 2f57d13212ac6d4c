package io.dimstream.change;

import static io.dimstream.change.TestSpecs.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.Expressions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Under {@code skip_when} a delete carries the columns its record holds, as decoded, so that the condition judges
 * it by what the user sees in the record; without it a delete stays key and sequence only.
 */
class DeleteColumnsTest {
  static final String LAGOS = "event.city == 'Lagos'";

  static DimensionSpec withSkipWhen(DimensionSpec s, String condition) {
    return new DimensionSpec(s.name(), s.source(), s.columns(), s.key(), s.sequence(), s.tracked(), s.deleteRule(),
        s.inputFormat(), s.outputFormat(), s.topics(), s.latenessHorizon(), s.output(), s.avroSchema(), s.service(),
        s.fields(), new Expressions(Map.of(), condition), s.history(), s.tableProperties());
  }

  static ChangeEvent accepted(Decoded d) {
    assertThat(d).isInstanceOf(Decoded.Accepted.class);
    return ((Decoded.Accepted) d).event();
  }

  static final String JSON_DELETE = "{'customer_id':1507,'name':'Ada','city':'Lagos','tier':'bronze',"
      + "'updated_at':'2026-03-01T08:00:00Z','op':'d'}";

  @Test
  void shouldCarryTheColumnsOfAJsonDeleteUnderSkipWhenOnly() {
    ChangeEvent carried = accepted(ChangeDecoder.forSpec(withSkipWhen(TestSpecs.customers(), LAGOS))
        .decode(null, json(JSON_DELETE), 0));
    ChangeEvent plain = accepted(ChangeDecoder.forSpec(TestSpecs.customers()).decode(null, json(JSON_DELETE), 0));

    // attributes of the example: name, email, city, tier (op is the delete rule's column); email is missing: null
    assertThat(carried).isEqualTo(new ChangeEvent(BusinessKey.of(1507L), Sequence.of(TestSpecs.MAR_1_0800_MICROS),
        true, Arrays.asList("Ada", null, "Lagos", "bronze")));
    assertThat(plain).isEqualTo(ChangeEvent.delete(BusinessKey.of(1507L), Sequence.of(TestSpecs.MAR_1_0800_MICROS)));
  }

  @Test
  void shouldRejectADeleteWhoseCarriedColumnHasTheWrongTypeAsAnUpsertWouldBe() {
    Decoded d = ChangeDecoder.forSpec(withSkipWhen(TestSpecs.customers(), LAGOS))
        .decode(null, json(JSON_DELETE.replace("'Lagos'", "['Lagos']")), 0);

    assertThat(d).isInstanceOfSatisfying(Decoded.Rejected.class, r -> {
      assertThat(r.reason()).isEqualTo(RejectReason.BAD_TYPE);
      assertThat(r.detail()).contains("'city'");
    });
  }

  @Test
  void shouldCarryTheBeforeImageOfADebeziumDeleteOrElseTheKeyOnly() {
    ChangeDecoder decoder = ChangeDecoder.forSpec(withSkipWhen(TestSpecs.debezium(), LAGOS));
    String full = "{'before':{'customer_id':7,'name':'Ada','email':'a@x','city':'Lagos','tier':'gold'},"
        + "'after':null,'op':'d','ts_ms':1772352000000,'source':{'lsn':5}}";
    String keyOnly = "{'before':{'customer_id':7},'after':null,'op':'d','ts_ms':1772352000000,'source':{'lsn':5}}";

    ChangeEvent replicaFull = accepted(decoder.decode(null, json(full), 0));
    ChangeEvent replicaDefault = accepted(decoder.decode(null, json(keyOnly), 0));

    // attributes of the Debezium example: name, email, city, tier
    assertThat(replicaFull.delete()).isTrue();
    assertThat(replicaFull.attributes()).containsExactly("Ada", "a@x", "Lagos", "gold");
    assertThat(replicaDefault.delete()).isTrue();
    assertThat(replicaDefault.attributes()).containsExactly(null, null, null, null);
  }

  @Test
  void shouldCarryTheFieldsOfAnAvroDelete() {
    DimensionSpec avro = withSkipWhen(AvroChangeDecoderTest.CUSTOMERS, LAGOS);

    ChangeEvent e = accepted(ChangeDecoder.forSpec(avro).decode(null,
        AvroChangeDecoderTest.customerChange(42, "Lagos", "d", TestSpecs.MAR_1_0800_MICROS), 0));

    assertThat(e.delete()).isTrue();
    assertThat(e.attributes()).containsExactly("Ada", null, "Lagos", "gold");
  }

  @Test
  void shouldCarryTheKeyOnlyForATombstone() {
    DimensionSpec spec = withSkipWhen(TestSpecs.customersWith(new io.dimstream.spec.DeleteRule.Tombstone()), LAGOS);

    ChangeEvent e = accepted(ChangeDecoder.forSpec(spec).decode(
        json("{'customer_id':7,'updated_at':'2026-03-01T08:00:00Z','city':'Lagos'}"), null, 0));

    assertThat(e).isEqualTo(ChangeEvent.delete(BusinessKey.of(7L), Sequence.of(TestSpecs.MAR_1_0800_MICROS)));
    assertThat(List.of(e.attributes())).containsExactly(List.of());
  }
}
