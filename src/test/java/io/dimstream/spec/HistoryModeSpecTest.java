package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The spec fields {@code history} and {@code soft_delete}. */
class HistoryModeSpecTest {
  private static final String BASE = """
      name: customers
      columns: {customer_id: long, city: string, tier: string, updated_at: timestamp, op: string}
      key: [customer_id]
      sequence: [updated_at]
      delete: {column: op, equals: d}
      """;

  @TempDir
  Path dir;

  @Test
  void shouldDefaultToScd2WithEveryAttributeTracked() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write(BASE));
    assertThat(spec.history()).isEqualTo(HistoryMode.SCD2);
    assertThat(spec.tracked()).containsExactly("city", "tier");
  }

  @Test
  void shouldLoadScd1WithNoTrackedAttribute() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write(BASE + "history: scd1\n"));
    assertThat(spec.history()).isEqualTo(new HistoryMode(HistoryMode.Kind.SCD1, false));
    assertThat(spec.trackedMask()).containsExactly(false, false);
  }

  @Test
  void shouldLoadTheShippedScd1Example() {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers-scd1.yaml"));
    assertThat(spec.history().isScd1()).isTrue();
    assertThat(spec.history().softDelete()).isFalse();
  }

  @Test
  void shouldLoadSoftDelete() throws IOException {
    DimensionSpec spec = DimensionSpecLoader.load(write(BASE + "history: scd1\nsoft_delete: true\n"));
    assertThat(spec.history().softDelete()).isTrue();
    assertThat(spec.history().hardDelete()).isFalse();
  }

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        Arguments.of("unknown history", BASE + "history: scd3\n", "history", "use scd2"),
        Arguments.of("track with scd1", BASE + "history: scd1\ntrack: [city]\n", "track", "remove 'track'"),
        Arguments.of("track_except with scd1", BASE + "history: scd1\ntrack_except: [city]\n", "track_except",
            "remove 'track_except'"),
        Arguments.of("soft_delete with scd2", BASE + "soft_delete: true\n", "soft_delete", "add 'history: scd1'"),
        Arguments.of("soft_delete not a boolean", BASE + "history: scd1\nsoft_delete: yes please\n", "soft_delete",
            "soft_delete: true"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSpecs")
  void shouldFailNamingFileFieldAndFix(String name, String yaml, String field, String fix) throws IOException {
    Path file = write(yaml);
    assertThatThrownBy(() -> DimensionSpecLoader.load(file))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(file + ": field '" + field + "': ")
        .hasMessageContaining("Fix: ")
        .hasMessageContaining(fix);
  }

  private Path write(String yaml) throws IOException {
    Path file = dir.resolve("dim.yaml");
    Files.writeString(file, yaml);
    return file;
  }
}
