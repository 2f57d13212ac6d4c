package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import io.dimstream.table.Snapshot;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VersionsTopicIdentityTest {
  private static final DimensionSpec SPEC = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
  /** A topic id whose text holds a dash, as the separator before the partition does. */
  private static final Uuid DASHED = new Uuid(0xFBEFBEFBEFBEFBEFL, 0xBEFBEFBEFBEFBEFBL);
  private static final Uuid OTHER = new Uuid(0x1234L, 0x5678L);

  private final VersionsTopicIdentity identity = new VersionsTopicIdentity("customers", "customers.versions", DASHED);

  @TempDir
  Path dir;

  @Test
  void shouldNameTheTopicIdBeforeThePartition() {
    assertThat(DASHED.toString()).contains("-");
    assertThat(identity.appIdPrefix()).isEqualTo("customers-versions-" + DASHED + "-");
    assertThat(identity.appId(3)).isEqualTo("customers-versions-" + DASHED + "-3");
    assertThat(VersionsTopicIdentity.legacyAppId("customers", 3)).isEqualTo("customers-versions-3");
  }

  @Test
  void shouldNotFollowAnEmptyTable() {
    assertThat(VersionsTopicIdentity.tableFollows(identity, table(Map.of()), Map.of(0, 10L))).isFalse();
  }

  @Test
  void shouldFollowATableWithAMarkerOfThisIncarnation() {
    Snapshot s = table(Map.of("customers-versions-" + DASHED + "-1", 4L));

    assertThat(VersionsTopicIdentity.tableFollows(identity, s, Map.of(0, 0L, 1, 0L))).isTrue();
  }

  @Test
  void shouldNotFollowATableWithMarkersOfAnotherIncarnationOnly() {
    Snapshot s = table(Map.of("customers-versions-" + OTHER + "-0", 4L, "orders-versions-" + DASHED + "-0", 4L));

    assertThat(VersionsTopicIdentity.tableFollows(identity, s, Map.of(0, 100L))).isFalse();
  }

  @Test
  void shouldFollowALegacyTableOnlyWhereTheTopicHoldsMoreRecordsThanItsMarkerCounts() {
    Snapshot s = table(Map.of("customers-versions-0", 9L));

    assertThat(VersionsTopicIdentity.tableFollows(identity, s, Map.of(0, 10L))).as("offset 9 exists").isTrue();
    assertThat(VersionsTopicIdentity.tableFollows(identity, s, Map.of(0, 9L))).as("the topic ends at 8").isFalse();
    assertThat(VersionsTopicIdentity.tableFollows(identity, s, Map.of(0, 0L))).as("an empty topic").isFalse();
    assertThat(VersionsTopicIdentity.tableFollows(identity, s, Map.of(1, 100L))).as("no such partition").isFalse();
  }

  @Test
  void shouldNotAdoptLegacyMarkersOnceAnIncarnationMarkerExists() {
    Snapshot newer = table(Map.of("customers-versions-0", 9L, "customers-versions-" + OTHER + "-0", 2L));
    assertThat(VersionsTopicIdentity.tableFollows(identity, newer, Map.of(0, 100L))).isFalse();

    Snapshot mixed = table(Map.of("customers-versions-0", 9L, "customers-versions-1", 7L,
        "customers-versions-" + DASHED + "-0", 12L));
    TrustedMarkers trusted = TrustedMarkers.atStart(identity, mixed, Map.of(0, 100L, 1, 100L));
    assertThat(trusted.recorded(mixed, 0)).as("this incarnation's marker").isEqualTo(12);
    assertThat(trusted.recorded(mixed, 1)).as("a legacy marker next to this incarnation's").isEqualTo(-1);
  }

  @Test
  void shouldResumeFromAnAdoptedLegacyMarkerUntilThisIncarnationRecordsThePartition() {
    Snapshot legacy = table(Map.of("customers-versions-0", 9L, "customers-versions-1", 50L));
    TrustedMarkers trusted = TrustedMarkers.atStart(identity, legacy, Map.of(0, 20L, 1, 20L));

    assertThat(trusted.recorded(legacy, 0)).as("below the partition's end: adopted").isEqualTo(9);
    assertThat(trusted.recorded(legacy, 1)).as("past the partition's end: from the beginning").isEqualTo(-1);
    Snapshot committed = table(Map.of("customers-versions-0", 9L, "customers-versions-" + DASHED + "-0", 15L));
    assertThat(trusted.recorded(committed, 0)).isEqualTo(15);
  }

  private Snapshot table(Map<String, Long> txns) {
    DeltaTable t = DeltaTable.create(dir.resolve("t" + System.nanoTime()), SPEC, Map.of());
    if (!txns.isEmpty()) {
      t.newCommit(Operation.MERGE).txns(new LinkedHashMap<>(txns)).apply(List.of());
    }
    return t.latest();
  }
}
