package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class OwnershipTest {
  @Test
  void shouldLetAWriterOfSomePartitionsRewriteOnlyTheirFiles() {
    Ownership some = Ownership.of(Set.of(0, 2), 4);

    assertThat(some.ownsAll()).isFalse();
    assertThat(some.mayRewrite(0)).isTrue();
    assertThat(some.mayRewrite(2)).isTrue();
    assertThat(some.mayRewrite(1)).as("another writer's partition").isFalse();
    assertThat(some.mayRewrite(-1)).as("an unowned file, which the owner of every partition compacts").isFalse();
  }

  @Test
  void shouldLetTheOwnerOfEveryPartitionRewriteUnownedFilesToo() {
    Ownership every = Ownership.of(Set.of(0, 1), 2);

    assertThat(every.ownsAll()).isTrue();
    assertThat(every.mayRewrite(-1)).isTrue();
    assertThat(Ownership.all().mayRewrite(-1)).isTrue();
    assertThat(Ownership.all().mayRewrite(7)).isTrue();
  }

  @Test
  void shouldOwnNotEveryPartitionBeforeTheTopicsPartitionsAreKnown() {
    assertThat(Ownership.of(Set.of(), 0).ownsAll()).isFalse();
    assertThat(Ownership.of(Set.of(0), 0).mayRewrite(-1)).isFalse();
  }
}
