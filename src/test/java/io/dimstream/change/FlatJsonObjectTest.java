package io.dimstream.change;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.FieldRules;
import io.dimstream.spec.InputFormat;
import io.dimstream.types.Column;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The token-stream reader of flat objects decodes every record exactly as the tree parse does, or declines it. */
class FlatJsonObjectTest {
  static Stream<Arguments> records() {
    return Stream.of(
        Arguments.of("plain", "{\"customer_id\":1,\"seq\":5,\"name\":\"Ada\",\"city\":\"Oslo\"}", true),
        Arguments.of("fields in any order", "{\"city\":\"Oslo\",\"seq\":5,\"customer_id\":1}", true),
        Arguments.of("explicit null", "{\"customer_id\":1,\"seq\":5,\"name\":null}", true),
        Arguments.of("numbers as text", "{\"customer_id\":\"7\",\"seq\":\" 5\",\"name\":12,\"city\":true}", true),
        Arguments.of("long key", "{\"customer_id\":9007199254740993,\"seq\":5}", true),
        Arguments.of("unknown fields in row order", "{\"zeta\":1,\"customer_id\":1,\"alpha\":\"x\",\"seq\":5}", true),
        Arguments.of("unavailable placeholder", "{\"customer_id\":1,\"seq\":5,\"name\":\"__debezium_unavailable_value\"}",
            true),
        Arguments.of("missing key", "{\"seq\":5,\"name\":\"Ada\"}", true),
        Arguments.of("missing sequence", "{\"customer_id\":1}", true),
        Arguments.of("bad type", "{\"customer_id\":\"x\",\"seq\":5}", true),
        Arguments.of("lone surrogate escape", "{\"customer_id\":1,\"seq\":5,\"name\":\"\\ud800\"}", true),
        Arguments.of("big integer", "{\"customer_id\":123456789012345678901234567890,\"seq\":5}", false),
        Arguments.of("decimal", "{\"customer_id\":1.0,\"seq\":5}", false),
        Arguments.of("decimal attribute", "{\"customer_id\":1,\"seq\":5,\"name\":1.50}", false),
        Arguments.of("nested object", "{\"customer_id\":1,\"seq\":5,\"name\":{\"a\":1}}", false),
        Arguments.of("array", "{\"customer_id\":1,\"seq\":5,\"city\":[1,2]}", false),
        Arguments.of("repeated field", "{\"customer_id\":1,\"seq\":5,\"seq\":6}", false),
        Arguments.of("repeated unknown field", "{\"customer_id\":1,\"seq\":5,\"x\":1,\"x\":2}", false),
        Arguments.of("trailing tokens", "{\"customer_id\":1,\"seq\":5} {}", false),
        Arguments.of("trailing garbage", "{\"customer_id\":1,\"seq\":5}x", false),
        Arguments.of("truncated", "{\"customer_id\":1,\"seq\":", false),
        Arguments.of("not an object", "[1,2]", false),
        Arguments.of("a string", "\"hello\"", false),
        Arguments.of("empty", "", false),
        Arguments.of("whitespace only", "   ", false),
        Arguments.of("whitespace around tokens", " \t{ \"customer_id\" :\n1 ,\r\n\"seq\": 5 }\n", true),
        Arguments.of("escaped quote in a value", "{\"customer_id\":1,\"seq\":5,\"name\":\"a\\\"b\"}", true),
        Arguments.of("escaped field name", "{\"customer\\u005fid\":1,\"seq\":5}", true),
        Arguments.of("non-ASCII text", "{\"customer_id\":1,\"seq\":5,\"name\":\"Zo\u00eb \u00c5se \ud83d\ude00\"}", true),
        Arguments.of("non-ASCII field name", "{\"customer_id\":1,\"seq\":5,\"n\u00e4me\":\"x\"}", true),
        Arguments.of("negative and zero", "{\"customer_id\":-0,\"seq\":-5,\"name\":0}", true),
        Arguments.of("int boundaries", "{\"customer_id\":2147483648,\"seq\":-2147483648,\"name\":2147483647}", true),
        Arguments.of("eighteen and nineteen digits", "{\"customer_id\":999999999999999999,\"seq\":9223372036854775807}",
            true),
        Arguments.of("long overflow", "{\"customer_id\":9223372036854775808,\"seq\":5}", false),
        Arguments.of("leading zero", "{\"customer_id\":01,\"seq\":5}", false),
        Arguments.of("exponent", "{\"customer_id\":1e3,\"seq\":5}", false),
        Arguments.of("lone minus", "{\"customer_id\":-,\"seq\":5}", false),
        Arguments.of("literal run on", "{\"customer_id\":1,\"seq\":5,\"city\":truex}", false),
        Arguments.of("literals", "{\"customer_id\":1,\"seq\":5,\"city\":false,\"name\":true}", true),
        Arguments.of("raw control character", "{\"customer_id\":1,\"seq\":5,\"name\":\"a\u0001b\"}", false),
        Arguments.of("missing comma", "{\"customer_id\":1 \"seq\":5}", false),
        Arguments.of("trailing comma", "{\"customer_id\":1,\"seq\":5,}", false),
        Arguments.of("empty object", "{}", true),
        Arguments.of("unquoted name", "{customer_id:1}", false));
  }

  static List<DimensionSpec> specs() {
    return List.of(FieldRulesDecoderTest.spec(InputFormat.JSON, FieldRules.DEFAULT),
        FieldRulesDecoderTest.spec(InputFormat.JSON,
            FieldRulesDecoderTest.rules(FieldRules.MissingFields.KEEP, FieldRules.UnknownFields.WARN)),
        FieldRulesDecoderTest.spec(InputFormat.JSON,
            FieldRulesDecoderTest.rules(FieldRules.MissingFields.NULL, FieldRules.UnknownFields.REJECT)),
        FieldRulesDecoderTest.spec(InputFormat.JSON,
            FieldRulesDecoderTest.rules(FieldRules.MissingFields.NULL, FieldRules.UnknownFields.IGNORE)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("records")
  void shouldDecodeAsTheTreeParseDoes(String name, String json, boolean readFlat) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);
    for (DimensionSpec spec : specs()) {
      assertThat(new JsonChangeDecoder(spec).decode(null, value, 0)).as(spec.fields().toString())
          .isEqualTo(treeDecode(spec, value));
      FlatJsonObject flat = new FlatJsonObject(new EventAssembler(spec).columns());
      assertThat(flat.read(value) != null).isEqualTo(readFlat);
      FlatJsonObject.Fields fromBytes = new FlatJsonBytes(new EventAssembler(spec).columns()).read(value);
      if (fromBytes != null) {
        FlatJsonObject.Fields fromTokens = flat.readTokens(value);
        assertThat(fromTokens).as("what the byte reader takes, the token reader takes").isNotNull();
        assertThat(fromBytes.byColumn()).containsExactly(fromTokens.byColumn());
        assertThat(fromBytes.undeclared()).isEqualTo(fromTokens.undeclared());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("plainRecords")
  void shouldReadPlainRecordsFromTheirBytes(String name, String json) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);
    Column[] columns = new EventAssembler(specs().get(0)).columns();
    assertThat(new FlatJsonBytes(columns).read(value)).isNotNull();
  }

  static Stream<Arguments> plainRecords() {
    return Stream.of(
        Arguments.of("generator's form", "{\"customer_id\":74047,\"seq\":\"2026-01-01T00:10:00Z\",\"name\":\"v1\"}"),
        Arguments.of("whitespace", " { \"customer_id\" : 1 , \"seq\" : 5 } "),
        Arguments.of("non-ASCII text", "{\"customer_id\":1,\"seq\":5,\"name\":\"Zo\u00eb\"}"),
        Arguments.of("unknown field", "{\"customer_id\":1,\"seq\":5,\"extra\":null}"));
  }

  /** The decode as it was before the token-stream reader: the whole object parsed as a tree. */
  private static Decoded treeDecode(DimensionSpec spec, byte[] value) {
    EventAssembler assembler = new EventAssembler(spec);
    Column[] columns = assembler.columns();
    try {
      JsonNode row = JsonRecords.object(value, "value");
      List<String> unknown = assembler.unknownFields(row);
      return new Decoded.Accepted(assembler.assemble(i -> assembler.field(row.get(columns[i].name()), columns[i]),
          false), unknown);
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }
}
