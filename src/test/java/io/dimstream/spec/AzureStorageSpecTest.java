package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.storage.AzureSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code service.storage.azure} as a user writes it: secrets inline or from the environment, never shown. */
class AzureStorageSpecTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String BASE = """
      name: customers
      columns: {customer_id: long, updated_at: timestamp, city: string}
      key: [customer_id]
      sequence: [updated_at]
      """;

  @TempDir
  Path dir;

  private AzureSettings read(String azure, Map<String, String> env) throws Exception {
    return AzureStorageSection.read(YAML.readTree(azure), dir.resolve("spec.yaml"), env::get);
  }

  @Test
  void shouldReadTheSectionOfASpecFileWithTheS3OneBesideIt() throws Exception {
    Path file = Files.writeString(dir.resolve("spec.yaml"), BASE + """
        service:
          table_path: az://dims/warehouse/customers
          storage:
            s3: {region: eu-west-1}
            azure: {account: mydims, account_key: c2VjcmV0LWtleQ==, request_timeout: 5s, max_attempts: 3}
        """);
    DimensionSpec spec = DimensionSpecLoader.load(file);
    AzureSettings azure = spec.service().storage().azure();
    assertThat(spec.service().tablePath().toString()).isEqualTo("az://dims/warehouse/customers");
    assertThat(spec.service().storage().region()).isEqualTo("eu-west-1");
    assertThat(azure.account()).isEqualTo("mydims");
    assertThat(azure.accountKey()).isEqualTo("c2VjcmV0LWtleQ==");
    assertThat(azure.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(azure.maxAttempts()).isEqualTo(3);
    assertThat(spec.service().storage().toString()).doesNotContain("c2VjcmV0LWtleQ==").contains("accountKey=***");
  }

  @Test
  void shouldTakeASecretFromTheVariableItNames() throws Exception {
    AzureSettings s = read("{sas_token_env: DIMS_SAS, endpoint: 'https://mydims.blob.core.windows.net'}",
        Map.of("DIMS_SAS", "sv=2024-01-01&sig=abc"));
    assertThat(s.sasToken()).isEqualTo("sv=2024-01-01&sig=abc");
    assertThat(s.endpoint()).isEqualTo("https://mydims.blob.core.windows.net");
    assertThat(s.toString()).doesNotContain("sig=abc");
  }

  @Test
  void shouldRefuseAMissingVariableAnUnknownKeyAndABadEndpointSayingWhatToDo() {
    assertThatThrownBy(() -> read("{connection_string_env: NOT_SET}", Map.of()))
        .hasMessageContaining("service.storage.azure.connection_string_env").hasMessageContaining("NOT_SET");
    assertThatThrownBy(() -> read("{acount: mydims}", Map.of())).hasMessageContaining("service.storage.azure")
        .hasMessageContaining("account");
    assertThatThrownBy(() -> read("{endpoint: 'mydims.blob.core.windows.net'}", Map.of()))
        .hasMessageContaining("is not an http(s) URL");
    assertThatThrownBy(() -> read("{account_key: x, account_key_env: Y}", Map.of()))
        .hasMessageContaining("given both inline and as account_key_env");
  }
}
