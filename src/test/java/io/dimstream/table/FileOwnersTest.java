package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.VersionId;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FileOwnersTest {
  private static final VersionId A = new VersionId(BusinessKey.of("a"), Sequence.of(1));
  private static final VersionId B = new VersionId(BusinessKey.of("b"), Sequence.of(2));
  private static final VersionId C = new VersionId(BusinessKey.of("c"), Sequence.of(3));

  @Test
  void shouldSendEveryChangeOfAOnePartitionBatchToThatPartition() {
    FileOwners owners = FileOwners.of(Map.of(A, 3, B, 3), Set.of(3), false);

    assertThat(owners.partitionOf(A)).isEqualTo(3);
    assertThat(owners.partitionOf(B)).isEqualTo(3);
    assertThat(owners.sources()).containsExactly(3);
  }

  @Test
  void shouldKeepEachIdentitysPartitionWhenABatchSpansPartitions() {
    FileOwners owners = FileOwners.of(Map.of(A, 0, B, 1), Set.of(0, 1), true);

    assertThat(owners.partitionOf(A)).isZero();
    assertThat(owners.partitionOf(B)).isEqualTo(1);
    assertThat(owners.partitionOf(C)).isEqualTo(-1);
    assertThat(owners.sources()).containsExactlyInAnyOrder(0, 1);
  }

  @Test
  void shouldWriteUnownedFilesWhenNoChangeNamesAPartition() {
    FileOwners owners = FileOwners.of(Map.of(), Set.of(), true);

    assertThat(owners.partitionOf(A)).isEqualTo(-1);
    assertThat(owners.sources()).isEmpty();
    assertThat(FileOwners.none().sources()).isEmpty();
  }
}
