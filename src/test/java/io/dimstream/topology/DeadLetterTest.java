package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.change.RejectReason;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad records reach the DLQ unchanged with a reason; the records around them are processed normally. */
class DeadLetterTest {
  static final DimensionSpec ITEMS = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq").latenessHorizon(100)
      .build();

  @TempDir
  Path stateDir;

  static String item(long id, String color, long seq) {
    return "{\"id\":" + id + ",\"color\":\"" + color + "\",\"seq\":" + seq + "}";
  }

  @Test
  void shouldSendBadRecordsToTheDlqAndKeepGoing() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      String broken = "{\"id\":1,\"color\":";
      String noKey = "{\"color\":\"red\",\"seq\":3}";
      String nullSeq = "{\"id\":1,\"color\":\"red\",\"seq\":null}";
      String wrongType = "{\"id\":1,\"color\":\"red\",\"seq\":\"soon\"}";
      String trailing = item(1, "red", 4) + " {}";
      h.send(item(1, "red", 1), broken, item(2, "blue", 1));
      h.send(bytes("my-key"), bytes(noKey));
      h.send(item(1, "green", 2), nullSeq, wrongType, trailing, item(2, "pink", 5));

      assertThat(h.rejections()).extracting(TopologyRunner.Rejection::valueText, TopologyRunner.Rejection::reason).containsExactly(
          org.assertj.core.groups.Tuple.tuple(broken, RejectReason.MALFORMED_JSON),
          org.assertj.core.groups.Tuple.tuple(noKey, RejectReason.MISSING_KEY),
          org.assertj.core.groups.Tuple.tuple(nullSeq, RejectReason.MISSING_SEQUENCE),
          org.assertj.core.groups.Tuple.tuple(wrongType, RejectReason.BAD_TYPE),
          org.assertj.core.groups.Tuple.tuple(trailing, RejectReason.MALFORMED_JSON));
      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(1), Sequence.of(2), List.of("red")),
          new Version(BusinessKey.of(1L), Sequence.of(2), null, List.of("green")),
          new Version(BusinessKey.of(2L), Sequence.of(1), Sequence.of(5), List.of("blue")),
          new Version(BusinessKey.of(2L), Sequence.of(5), null, List.of("pink")));
    }
  }

  @Test
  void shouldSendARecordThatMakesTheDecoderFailToTheDlqAndKeepGoing() {
    io.dimstream.change.ChangeDecoder real = io.dimstream.change.ChangeDecoder.forSpec(ITEMS);
    io.dimstream.change.ChangeDecoder buggy = (key, value, ts) -> {
      if (new String(value, java.nio.charset.StandardCharsets.UTF_8).contains("boom")) {
        throw new IllegalStateException("a bug");
      }
      return real.decode(key, value, ts);
    };
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).decoder(buggy).build()) {
      String poison = item(1, "boom", 2);
      h.send(item(1, "red", 1), poison, item(1, "green", 3));

      assertThat(h.rejections()).extracting(TopologyRunner.Rejection::valueText, TopologyRunner.Rejection::reason)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(poison, RejectReason.PROCESSING_ERROR));
      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(1), Sequence.of(3), List.of("red")),
          new Version(BusinessKey.of(1L), Sequence.of(3), null, List.of("green")));
    }
  }

  @Test
  void shouldKeepTheOriginalKeyAndSayWhyOnTheDlq() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      h.send(bytes("original-key"), bytes("{\"color\":\"red\",\"seq\":3}"));

      TopologyRunner.Rejection dead = h.rejections().get(0);
      assertThat(new String(dead.key(), StandardCharsets.UTF_8)).isEqualTo("original-key");
      assertThat(dead.detail()).contains("id");
    }
  }

  @Test
  void shouldRejectEventsBeyondTheLatenessHorizonUnchanged() {
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      h.send(item(1, "red", 1000));
      String tooLate = item(1, "blue", 899);
      h.send(bytes("k1"), bytes(tooLate));
      h.send(item(1, "green", 900)); // exactly at the horizon: still spliced in

      List<TopologyRunner.Rejection> dead = h.rejections();
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).valueText()).isEqualTo(tooLate);
      assertThat(new String(dead.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("k1");
      assertThat(dead.get(0).reason()).isEqualTo(RejectReason.BEYOND_LATENESS_HORIZON);
      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(900), Sequence.of(1000), List.of("green")),
          new Version(BusinessKey.of(1L), Sequence.of(1000), null, List.of("red")));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
