package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.VersionJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class BusinessKeyPartitionerTest {
  static final DimensionSpec SPEC = DimensionSpec.builder("p")
      .column("region", ColumnType.STRING).column("id", ColumnType.LONG).column("x", ColumnType.STRING)
      .column("seq", ColumnType.LONG).key("region", "id").sequence("seq").build();

  @Test
  void shouldPutEveryRecordOfOneKeyInOnePartition() {
    EventJson events = new EventJson(SPEC);
    VersionJson versions = new VersionJson(SPEC);
    BusinessKeyPartitioner partitioner = new BusinessKeyPartitioner();
    int partitions = 12;
    Set<Integer> byRecordKey = new HashSet<>();
    for (long id = 0; id < 50; id++) {
      BusinessKey key = BusinessKey.of("eu", id);
      byte[] canonical = events.keyBytes(key);
      Set<Integer> seen = new HashSet<>();
      for (long from = 0; from < 40; from++) {
        byte[] recordKey = versions.encodeKey(key, Sequence.of(from * 1_000_003));
        OutKey out = new OutKey(canonical, recordKey);
        seen.addAll(partitioner.partitions("p.versions", out, null, partitions).orElseThrow());
        seen.addAll(partitioner.partitions("p.versions", out, new byte[] {1}, partitions).orElseThrow());
        if (id == 0) {
          byRecordKey.add(Utils.toPositive(Utils.murmur2(recordKey)) % partitions);
        }
      }
      assertThat(seen).as("partitions of key %s", key)
          .containsExactly(Utils.toPositive(Utils.murmur2(canonical)) % partitions);
    }
    assertThat(byRecordKey).as("hashing the full record key would scatter one key's versions").hasSizeGreaterThan(1);
  }

  @Test
  void shouldSpreadKeysOverPartitions() {
    EventJson events = new EventJson(SPEC);
    Set<Integer> used = new HashSet<>();
    for (long id = 0; id < 200; id++) {
      byte[] canonical = events.keyBytes(BusinessKey.of("us", id));
      Optional<Set<Integer>> p = new BusinessKeyPartitioner().partitions("t", new OutKey(canonical, canonical), null, 8);
      used.addAll(p.orElseThrow());
    }
    assertThat(used).hasSize(8);
  }
}
