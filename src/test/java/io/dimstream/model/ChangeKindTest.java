package io.dimstream.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ChangeKindTest {
  @Test
  void shouldReadBackEveryWireName() {
    for (ChangeKind k : ChangeKind.values()) {
      assertThat(ChangeKind.fromWire(k.wireName())).isEqualTo(k);
    }
  }

  @Test
  void shouldReadAWireNameInAnyLetterCase() {
    assertThat(ChangeKind.fromWire("Close")).isEqualTo(ChangeKind.CLOSE);
    assertThat(ChangeKind.fromWire("OPEN")).isEqualTo(ChangeKind.OPEN);
  }

  @Test
  void shouldRefuseAnUnknownName() {
    assertThatThrownBy(() -> ChangeKind.fromWire("reopen")).isInstanceOf(IllegalArgumentException.class);
  }
}
