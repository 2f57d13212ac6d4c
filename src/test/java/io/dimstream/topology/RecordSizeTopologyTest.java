package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.change.RejectReason;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.ServiceSettings;
import io.dimstream.types.ColumnType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Change records over {@code service.max_record_bytes} go to the DLQ as too-large; the ones at the limit apply. */
class RecordSizeTopologyTest {
  static final int LIMIT = 1_000;
  static final DimensionSpec ITEMS = DimensionSpec.builder("items")
      .column("id", ColumnType.LONG).column("color", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq")
      .service(ServiceSettings.defaults("items").withMaxRecordBytes(LIMIT))
      .build();

  @TempDir
  Path stateDir;

  /** An item record of exactly {@code bytes} UTF-8 bytes, its color padded with 'x'. */
  static String itemOfSize(long id, long seq, int bytes) {
    return "{\"id\":" + id + ",\"color\":\"" + colorOfSize(id, seq, bytes) + "\",\"seq\":" + seq + "}";
  }

  static String colorOfSize(long id, long seq, int bytes) {
    String empty = "{\"id\":" + id + ",\"color\":\"\",\"seq\":" + seq + "}";
    return "x".repeat(bytes - empty.length());
  }

  @Test
  void shouldApplyARecordAtTheLimitAndDeadLetterOneByteOverWhileLaterRecordsFlow() {
    String atLimit = itemOfSize(1, 1, LIMIT);
    String over = itemOfSize(2, 1, LIMIT + 1);
    assertThat(atLimit.getBytes(StandardCharsets.UTF_8)).hasSize(LIMIT);
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      h.send(atLimit, over, "{\"id\":3,\"color\":\"red\",\"seq\":1}");

      List<TopologyRunner.Rejection> dead = h.rejections();
      assertThat(dead).extracting(TopologyRunner.Rejection::valueText, TopologyRunner.Rejection::reason)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(over, RejectReason.TOO_LARGE));
      assertThat(dead.get(0).detail()).contains("1001 bytes", "limit of 1000", "service.max_record_bytes");
      assertThat(h.history()).containsExactly(
          new Version(BusinessKey.of(1L), Sequence.of(1), null, List.of(colorOfSize(1, 1, LIMIT))),
          new Version(BusinessKey.of(3L), Sequence.of(1), null, List.of("red")));
    }
  }

  @Test
  void shouldKeepTheKeyAndAPrefixOfAValueTooLargeForTheDeadLetterTopic() {
    String huge = itemOfSize(4, 1, 1_000_000);
    try (TopologyRunner h = TopologyRunner.builder(ITEMS).stateDir(stateDir).build()) {
      h.send("item-4".getBytes(StandardCharsets.UTF_8), huge.getBytes(StandardCharsets.UTF_8));
      h.send("{\"id\":5,\"color\":\"red\",\"seq\":1}");

      List<TopologyRunner.Rejection> dead = h.rejections();
      assertThat(dead).hasSize(1);
      TopologyRunner.Rejection d = dead.get(0);
      assertThat(d.reason()).isEqualTo(RejectReason.TOO_LARGE);
      assertThat(new String(d.key(), StandardCharsets.UTF_8)).isEqualTo("item-4");
      // the copy must fit what the service lets itself write for a 1,000-byte policy, far below 1 MB
      assertThat(d.valueText().length()).isLessThan(300_000).isPositive();
      assertThat(huge).startsWith(d.valueText());
      assertThat(d.detail()).contains("1000006 bytes", "keeps the first " + d.valueText().length() + " bytes");
      assertThat(h.history()).extracting(Version::key).containsExactly(BusinessKey.of(5L));
    }
  }
}
