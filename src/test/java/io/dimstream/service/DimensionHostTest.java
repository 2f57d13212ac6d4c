package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.spec.DimensionSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What several dimensions in one process must agree on, refused before anything starts. */
class DimensionHostTest {
  @TempDir
  Path dir;

  @Test
  void shouldAcceptDimensionsThatShareTheServiceWideSettings() throws Exception {
    DimensionSpec a = ExampleSpec.customers(java.nio.file.Files.createDirectories(dir.resolve("a")), "host_a", "");
    DimensionSpec b = ExampleSpec.customers(java.nio.file.Files.createDirectories(dir.resolve("b")), "host_b", "").withService(
        a.service().withTablePath(dir.resolve("b-table")));

    assertThatCode(() -> DimensionHost.checkShared(List.of(a, b))).doesNotThrowAnyException();
  }

  @Test
  void shouldRefuseTwoDataDirectoriesNamingTheDimensionsAndTheFix() throws Exception {
    DimensionSpec a = ExampleSpec.customers(java.nio.file.Files.createDirectories(dir.resolve("a")), "host_a", "");
    DimensionSpec b = ExampleSpec.customers(java.nio.file.Files.createDirectories(dir.resolve("b")), "host_b", "");

    assertThatThrownBy(() -> DimensionHost.checkShared(List.of(a, b))).isInstanceOf(ServiceException.class)
        .hasMessageContaining("'host_a' and 'host_b'").hasMessageContaining("service.data_dir")
        .hasMessageContaining("Fix: set service.data_dir the same in every spec");
  }

  @Test
  void shouldRefuseKafkaSettingsThatDifferWithoutShowingTheirSecrets() throws Exception {
    DimensionSpec a = ExampleSpec.customers(dir, "host_a", "  kafka: {sasl.jaas.config: \"secret-one\"}\n");
    DimensionSpec b = ExampleSpec.customers(dir, "host_b", "  kafka: {sasl.jaas.config: \"secret-two\"}\n");

    assertThatThrownBy(() -> DimensionHost.checkShared(List.of(a, b))).hasMessageContaining("service.kafka")
        .hasMessageNotContaining("secret-one").hasMessageNotContaining("secret-two");
  }

  @Test
  void shouldRefuseTwoStateMemoryBudgetsWithTheFix() throws Exception {
    DimensionSpec a = ExampleSpec.customers(dir, "host_a", "  state_memory: 256MiB\n");
    DimensionSpec b = ExampleSpec.customers(dir, "host_b", "  state_memory: 1GiB\n");

    assertThat(a.service().stateMemory()).isEqualTo(256L << 20);
    assertThat(b.service().stateMemory()).isEqualTo(1L << 30);
    assertThatThrownBy(() -> DimensionHost.checkShared(List.of(a, b))).hasMessageContaining("service.state_memory")
        .hasMessageContaining("Fix: set service.state_memory the same in every spec");
  }

  @Test
  void shouldRefuseAStateMemoryThatIsNotASizeOrTooSmall() {
    assertThatThrownBy(() -> ExampleSpec.customers(dir, "host_a", "  state_memory: lots\n"))
        .hasMessageContaining("service.state_memory").hasMessageContaining("'lots' is not a size")
        .hasMessageContaining("state_memory: 512MiB");
    assertThatThrownBy(() -> ExampleSpec.customers(dir, "host_b", "  state_memory: 8MiB\n"))
        .hasMessageContaining("8MiB is below 16 MiB");
  }

  @Test
  void shouldRefuseTwoSpecsOfOneName() throws Exception {
    DimensionSpec a = ExampleSpec.customers(dir, "host_same", "");

    assertThatThrownBy(() -> DimensionHost.checkShared(List.of(a, a))).hasMessageContaining("'host_same'")
        .hasMessageContaining("Fix: give each dimension its own name");
  }

  @Test
  void shouldRefuseAnEmptyDirectoryWithTheFix() {
    assertThatThrownBy(() -> DimensionHost.checkShared(List.of())).hasMessageContaining("No dimension to run");
  }
}
