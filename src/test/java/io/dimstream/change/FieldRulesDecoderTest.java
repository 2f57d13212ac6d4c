package io.dimstream.change;

import static io.dimstream.change.TestSpecs.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.Absent;
import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.FieldRules;
import io.dimstream.spec.InputFormat;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@code missing_fields}, {@code unavailable_value} and {@code unknown_fields} in the JSON and Debezium decoders. */
class FieldRulesDecoderTest {
  private static final Absent ABSENT = Absent.VALUE;

  static DimensionSpec spec(InputFormat format, FieldRules rules) {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long").column("name", "string").column("city", "string").column("seq", "long")
        .key("customer_id").sequence("seq").inputFormat(format)
        .delete(format == InputFormat.DEBEZIUM_JSON ? new DeleteRule.DebeziumOp() : new DeleteRule.None())
        .fields(rules).build();
  }

  static FieldRules rules(FieldRules.MissingFields missing, FieldRules.UnknownFields unknown) {
    return new FieldRules(missing, FieldRules.DEBEZIUM_UNAVAILABLE, unknown);
  }

  private static Decoded decode(DimensionSpec spec, String value) {
    return ChangeDecoder.forSpec(spec).decode(null, json(value), 0);
  }

  private static ChangeEvent accepted(Decoded d) {
    return JsonChangeDecoderTest.accepted(d);
  }

  @Test
  void shouldReadAnAbsentFieldAsAbsentUnderKeepAndExplicitNullAsNull() {
    DimensionSpec keep = spec(InputFormat.JSON, rules(FieldRules.MissingFields.KEEP, FieldRules.UnknownFields.WARN));

    ChangeEvent e = accepted(decode(keep, "{'customer_id':1,'seq':5,'city':null}"));

    assertThat(e.attributes()).containsExactly(ABSENT, null);
  }

  @Test
  void shouldReadAnAbsentFieldAsNullByDefault() {
    ChangeEvent e = accepted(decode(spec(InputFormat.JSON, FieldRules.DEFAULT), "{'customer_id':1,'seq':5}"));

    assertThat(e.attributes()).containsExactly(null, null);
  }

  @Test
  void shouldReadTheUnavailablePlaceholderAsAbsentEvenWithoutKeep() {
    ChangeEvent e = accepted(decode(spec(InputFormat.JSON, FieldRules.DEFAULT),
        "{'customer_id':1,'seq':5,'name':'__debezium_unavailable_value','city':'Oslo'}"));

    assertThat(e.attributes()).containsExactly(ABSENT, "Oslo");
  }

  @Test
  void shouldReadAConfiguredPlaceholderInADebeziumAfterRow() {
    DimensionSpec spec = spec(InputFormat.DEBEZIUM_JSON,
        new FieldRules(FieldRules.MissingFields.NULL, "<toasted>", FieldRules.UnknownFields.WARN));

    ChangeEvent e = accepted(decode(spec,
        "{'op':'u','before':null,'after':{'customer_id':1,'seq':5,'name':'<toasted>','city':'Oslo'}}"));

    assertThat(e.attributes()).containsExactly(ABSENT, "Oslo");
  }

  @Test
  void shouldRejectAKeyThatIsOnlyThePlaceholderAsMissing() {
    Decoded d = decode(spec(InputFormat.JSON, FieldRules.DEFAULT),
        "{'customer_id':'__debezium_unavailable_value','seq':5}");

    assertThat(d).isInstanceOf(Decoded.Rejected.class);
    assertThat(((Decoded.Rejected) d).reason()).isEqualTo(RejectReason.MISSING_KEY);
  }

  @Test
  void shouldReportUndeclaredFieldsUnderWarn() {
    Decoded d = decode(spec(InputFormat.JSON, FieldRules.DEFAULT),
        "{'customer_id':1,'seq':5,'city':'Oslo','loyalty':9,'tags':[]}");

    assertThat(d).isInstanceOf(Decoded.Accepted.class);
    assertThat(((Decoded.Accepted) d).unknownFields()).containsExactly("loyalty", "tags");
    assertThat(((Decoded.Accepted) d).event().attributes()).isEqualTo(Arrays.asList(null, "Oslo"));
  }

  @Test
  void shouldReportNothingUnderIgnore() {
    Decoded d = decode(spec(InputFormat.JSON, rules(FieldRules.MissingFields.NULL, FieldRules.UnknownFields.IGNORE)),
        "{'customer_id':1,'seq':5,'loyalty':9}");

    assertThat(((Decoded.Accepted) d).unknownFields()).isEmpty();
  }

  @Test
  void shouldRejectAnUndeclaredFieldUnderReject() {
    Decoded d = decode(spec(InputFormat.JSON, rules(FieldRules.MissingFields.NULL, FieldRules.UnknownFields.REJECT)),
        "{'customer_id':1,'seq':5,'loyalty':9}");

    assertThat(d).isInstanceOf(Decoded.Rejected.class);
    Decoded.Rejected r = (Decoded.Rejected) d;
    assertThat(r.reason()).isEqualTo("unknown-field");
    assertThat(r.detail()).contains("\"loyalty\"").contains("unknown_fields").contains("columns");
  }

  @Test
  void shouldCheckOnlyTheAfterRowOfADebeziumUpsert() {
    DimensionSpec spec = spec(InputFormat.DEBEZIUM_JSON,
        rules(FieldRules.MissingFields.NULL, FieldRules.UnknownFields.REJECT));

    Decoded upsert = decode(spec, "{'op':'u','before':null,'after':{'customer_id':1,'seq':5,'extra':1},"
        + "'source':{'lsn':9},'ts_ms':1}");
    Decoded delete = decode(spec, "{'op':'d','before':{'customer_id':1,'seq':5,'extra':1},'after':null,"
        + "'source':{'lsn':9},'ts_ms':1,'seq':6}");

    assertThat(((Decoded.Rejected) upsert).reason()).isEqualTo("unknown-field");
    assertThat(delete).isInstanceOf(Decoded.Accepted.class);
  }
}
