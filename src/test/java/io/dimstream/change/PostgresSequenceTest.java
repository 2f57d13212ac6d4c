package io.dimstream.change;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Postgres' {@code source.sequence} as the connector writes it (values seen from Debezium 3.6.1 on Postgres 14):
 * [last committed LSN, LSN of the change] as digit strings, the first null until a commit has been seen.
 */
class PostgresSequenceTest {
  private static final DimensionSpec SPEC = spec();

  private static DimensionSpec spec() {
    try {
      return DimensionSpecLoader.parse(new ObjectMapper().readTree(("{'name': 'customers', 'format': 'debezium-json',"
          + " 'sequence': ['source.sequence'], 'columns': {'id': 'int', 'name': 'string'}, 'key': ['id']}")
          .replace('\'', '"')), null);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Decoded decode(String op, String sequence) {
    String row = "{\"id\":1,\"name\":\"a\"}";
    String envelope = "{\"before\":" + ("d".equals(op) ? row : "null") + ",\"after\":" + ("d".equals(op) ? "null"
        : row) + ",\"source\":{\"connector\":\"postgresql\",\"sequence\":\"" + sequence.replace("\"", "\\\"")
        + "\",\"lsn\":1},\"op\":\"" + op + "\"}";
    return ChangeDecoder.forSpec(SPEC).decode(null, envelope.getBytes(StandardCharsets.UTF_8), -1);
  }

  private static Sequence sequence(String op, String sequence) {
    return JsonChangeDecoderTest.accepted(decode(op, sequence)).sequence();
  }

  @Test
  void shouldExpandSourceSequenceIntoItsTwoElements() {
    assertThat(SPEC.sequence()).containsExactly("source.sequence.0", "source.sequence.1");
    assertThat(SPEC.extraValidFromColumns()).containsExactly("valid_from_source_sequence_1");
  }

  @Test
  void shouldOrderCommitsElementWiseAsTheConnectorWroteThem() {
    // snapshot, first streamed transaction, then T2 committing before T1 although T1 started first
    List<Sequence> inStreamOrder = List.of(
        sequence("r", "[null,\"24211704\"]"),
        sequence("u", "[null,\"24211744\"]"),
        sequence("u", "[\"24233888\",\"24233968\"]"),
        sequence("u", "[\"24234224\",\"24233888\"]"),
        sequence("d", "[\"24234224\",\"24234224\"]"));
    List<Sequence> sorted = new ArrayList<>(inStreamOrder);
    sorted.sort(null);

    assertThat(sorted).containsExactlyElementsOf(inStreamOrder);
    assertThat(inStreamOrder.get(3)).isEqualTo(Sequence.of(24234224L, 24233888L));
    assertThat(inStreamOrder.get(0)).isEqualTo(Sequence.of(0L, 24211704L));
  }

  @Test
  void shouldRejectASequenceThatIsNotTwoLsns() {
    assertThat(decode("u", "[\"0/16B3748\",\"1\"]")).isInstanceOfSatisfying(Decoded.Rejected.class,
        r -> assertThat(r.reason()).isEqualTo(RejectReason.BAD_TYPE));
    assertThat(decode("u", "[\"1\"]")).isInstanceOfSatisfying(Decoded.Rejected.class,
        r -> assertThat(r.detail()).contains("a JSON array of two LSNs"));
  }
}
