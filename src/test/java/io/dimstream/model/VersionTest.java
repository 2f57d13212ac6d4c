package io.dimstream.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Validity is half-open: a version holds from its {@code valid_from} on, up to but not at its {@code valid_to}. */
class VersionTest {
  private static final BusinessKey KEY = BusinessKey.of(1L);

  @Test
  void shouldBeValidFromItsStartUpToButNotAtItsEnd() {
    Version v = new Version(KEY, Sequence.of(10), Sequence.of(20), List.of("Oslo"));

    assertThat(v.validAt(9)).isFalse();
    assertThat(v.validAt(10)).isTrue();
    assertThat(v.validAt(19)).isTrue();
    assertThat(v.validAt(20)).isFalse();
  }

  @Test
  void shouldHoldAnOpenVersionValidForeverAfterItsStart() {
    Version open = new Version(KEY, Sequence.of(10), null, List.of("Oslo"));

    assertThat(open.validAt(9)).isFalse();
    assertThat(open.validAt(10)).isTrue();
    assertThat(open.validAt(Long.MAX_VALUE)).isTrue();
  }

  @Test
  void shouldLeaveNoGapAndNoOverlapBetweenAVersionAndTheNext() {
    Version first = new Version(KEY, Sequence.of(10), Sequence.of(20), List.of("Oslo"));
    Version next = new Version(KEY, Sequence.of(20), null, List.of("Rome"));

    for (long t = 5; t < 30; t++) {
      int valid = (first.validAt(t) ? 1 : 0) + (next.validAt(t) ? 1 : 0);
      assertThat(valid).as("versions valid at %d", t).isEqualTo(t < 10 ? 0 : 1);
    }
  }

  @Test
  void shouldCompareATimeWithTheFirstSequencePartOnly() {
    // valid_from (10, 5) .. valid_to (20, 0): at 10 and at 20 only the first part counts
    Version v = new Version(KEY, Sequence.of(10, 5), Sequence.of(20, 0), List.of("Oslo"));

    assertThat(v.validAt(10)).isTrue();
    assertThat(v.validAt(20)).isFalse();
  }

  @Test
  void shouldCompareASequencePointPartByPart() {
    Version v = new Version(KEY, Sequence.of(10, 5), Sequence.of(20, 0), List.of("Oslo"));

    assertThat(v.validAt(Sequence.of(10, 4))).isFalse();
    assertThat(v.validAt(Sequence.of(10, 5))).isTrue();
    assertThat(v.validAt(Sequence.of(19, 99))).isTrue();
    assertThat(v.validAt(Sequence.of(20, -1))).isTrue();
    assertThat(v.validAt(Sequence.of(20, 0))).isFalse();
    assertThat(new Version(KEY, Sequence.of(10, 5), null, List.of()).validAt(Sequence.of(Long.MAX_VALUE, 0))).isTrue();
  }
}
