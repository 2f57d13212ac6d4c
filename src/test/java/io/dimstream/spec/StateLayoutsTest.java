package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.types.ColumnType;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateLayoutsTest {
  static DimensionSpec spec(String... attributes) {
    DimensionSpecBuilder b = DimensionSpec.builder("items").column("id", ColumnType.LONG);
    for (String a : attributes) {
      b.column(a, ColumnType.STRING);
    }
    return b.column("seq", ColumnType.LONG).key("id").sequence("seq").build();
  }

  @Test
  void shouldAddTheFormerLayoutOnlyWhenTheAttributesChange() {
    StateLayouts once = StateLayouts.NONE.evolved(spec("color"), spec("color", "size"));
    StateLayouts twice = once.evolved(spec("color", "size"), spec("brand", "color", "size"));

    assertThat(once.earlier()).containsExactly(List.of("color"));
    assertThat(twice.earlier()).containsExactly(List.of("color"), List.of("color", "size"));
    assertThat(twice.evolved(spec("brand", "color", "size"), spec("brand", "color", "size"))).isEqualTo(twice);
  }

  @Test
  void shouldReadWhatItWrites() {
    StateLayouts layouts = new StateLayouts(List.of(List.of("color"), List.of("color", "size \"x\"")));

    assertThat(layouts.toJson()).isEqualTo("[[\"color\"],[\"color\",\"size \\\"x\\\"\"]]");
    assertThat(StateLayouts.parse(layouts.toJson())).isEqualTo(layouts);
    assertThat(StateLayouts.parse(null)).isEqualTo(StateLayouts.NONE);
    assertThat(StateLayouts.parse("[]")).isEqualTo(StateLayouts.NONE);
  }

  @Test
  void shouldRefuseTextThatIsNoListOfLayouts() {
    assertThatThrownBy(() -> StateLayouts.parse("{\"color\": 1}")).hasMessageContaining("not a JSON array");
    assertThatThrownBy(() -> StateLayouts.parse("[[\"color\", 3]]")).hasMessageContaining("not a column name");
    assertThatThrownBy(() -> StateLayouts.parse("[[\"color\"")).hasMessageContaining(StateLayouts.PROPERTY)
        .hasMessageContaining("Fix:");
  }
}
