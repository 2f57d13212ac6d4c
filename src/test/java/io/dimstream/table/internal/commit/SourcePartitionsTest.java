package io.dimstream.table.internal.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.VersionId;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourcePartitionsTest {
  private static final VersionId A = new VersionId(BusinessKey.of("a"), Sequence.of(1));
  private static final VersionId B = new VersionId(BusinessKey.of("b"), Sequence.of(2));
  private static final VersionId C = new VersionId(BusinessKey.of("c"), Sequence.of(3));

  @Test
  void shouldSendEveryChangeOfAOnePartitionBatchToThatPartition() {
    SourcePartitions owners = SourcePartitions.of(Map.of(A, 3, B, 3));

    assertThat(owners.partitionOf(A)).isEqualTo(3);
    assertThat(owners.partitionOf(B)).isEqualTo(3);
    assertThat(owners.sources()).containsExactly(3);
  }

  @Test
  void shouldKeepEachIdentitysPartitionWhenABatchSpansPartitions() {
    SourcePartitions owners = SourcePartitions.of(Map.of(A, 0, B, 1));

    assertThat(owners.partitionOf(A)).isZero();
    assertThat(owners.partitionOf(B)).isEqualTo(1);
    assertThat(owners.partitionOf(C)).isEqualTo(-1);
    assertThat(owners.sources()).containsExactlyInAnyOrder(0, 1);
  }

  @Test
  void shouldWriteUnownedFilesWhenNoChangeNamesAPartition() {
    SourcePartitions owners = SourcePartitions.of(Map.of());

    assertThat(owners.partitionOf(A)).isEqualTo(-1);
    assertThat(owners.sources()).isEmpty();
    assertThat(SourcePartitions.none().sources()).isEmpty();
  }
}
