package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VersionBatchTest {
  private static final String PREFIX = "customers-versions-AAAAAAAAAAAAAAAAAAAAAQ-";
  private final VersionBatch batch = new VersionBatch(PREFIX);

  private static VersionChange open(long key, long from, String city) {
    return new VersionChange.Upsert(new Version(BusinessKey.of(key), Sequence.of(from), null, List.of(city)),
        ChangeKind.OPEN);
  }

  private static VersionChange close(long key, long from, long to, String city) {
    return new VersionChange.Upsert(new Version(BusinessKey.of(key), Sequence.of(from), Sequence.of(to),
        List.of(city)), ChangeKind.CLOSE);
  }

  private static VersionChange retract(long key, long from) {
    return new VersionChange.Retraction(BusinessKey.of(key), Sequence.of(from));
  }

  @Test
  void shouldKeepOnlyTheLastRecordPerIdentity() {
    batch.add(0, 10, open(1, 100, "Oslo"));
    batch.add(0, 11, open(2, 100, "Lyon"));
    batch.add(0, 12, close(1, 100, 200, "Oslo"));
    batch.add(0, 13, open(1, 200, "Rome"));

    assertThat(batch.changes()).containsExactly(open(2, 100, "Lyon"), close(1, 100, 200, "Oslo"),
        open(1, 200, "Rome"));
    assertThat(batch.records()).isEqualTo(4);
  }

  @Test
  void shouldLetARetractionReplaceAnEarlierUpsertOfTheSameVersionAndTheOtherWayRound() {
    batch.add(0, 1, open(1, 100, "Oslo"));
    batch.add(0, 2, retract(1, 100));
    batch.add(0, 3, retract(2, 100));
    batch.add(0, 4, open(2, 100, "Lyon"));

    assertThat(batch.changes()).containsExactly(retract(1, 100), open(2, 100, "Lyon"));
  }

  @Test
  void shouldRecordTheLastOffsetOfEachPartitionAsItsTxnVersion() {
    batch.add(2, 40, open(1, 100, "Oslo"));
    batch.add(0, 7, open(2, 100, "Lyon"));
    batch.add(2, 41, close(1, 100, 200, "Oslo"));
    batch.add(0, 9, open(3, 100, "Rome"));

    assertThat(batch.txns()).containsExactly(Map.entry(PREFIX + "0", 9L),
        Map.entry(PREFIX + "2", 41L));
    assertThat(batch.lastOffsets()).containsOnly(Map.entry(0, 9L), Map.entry(2, 41L));
    assertThat(batch.firstOffsets()).containsOnly(Map.entry(0, 7L), Map.entry(2, 40L));
  }

  @Test
  void shouldAdvanceTheOffsetForARecordWithoutAChange() {
    batch.add(1, 5, open(1, 100, "Oslo"));
    batch.add(1, 6, null);

    assertThat(batch.changes()).containsExactly(open(1, 100, "Oslo"));
    assertThat(batch.txns()).containsExactly(Map.entry(PREFIX + "1", 6L));
    assertThat(batch.records()).isEqualTo(2);
  }

  @Test
  void shouldStartEmptyAgainAfterClear() {
    batch.add(0, 1, open(1, 100, "Oslo"));
    batch.clear();

    assertThat(batch.isEmpty()).isTrue();
    assertThat(batch.changes()).isEmpty();
    assertThat(batch.txns()).isEmpty();
    batch.add(0, 2, open(2, 100, "Lyon"));
    assertThat(batch.txns()).containsExactly(Map.entry(PREFIX + "0", 2L));
  }
}
