package io.dimstream.spec;

import static io.dimstream.spec.SpecNodes.checkKnown;
import static io.dimstream.spec.SpecNodes.durationMicros;
import static io.dimstream.spec.SpecNodes.positiveInt;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.storage.AzureSettings;
import io.dimstream.storage.StorageSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The spec's {@code service.storage.azure}: {@code account}, {@code endpoint}, {@code request_timeout},
 * {@code max_attempts}, and the secrets {@code connection_string}, {@code account_key}, {@code sas_token}, each inline
 * or as {@code <name>_env: VARIABLE}. With no secret the environment decides ({@code AZURE_STORAGE_CONNECTION_STRING},
 * ..., then {@code DefaultAzureCredential}).
 */
final class AzureStorageSection {
  private static final String SECTION = "service.storage.azure";

  private AzureStorageSection() {}

  static AzureSettings read(JsonNode az, Path file) {
    return read(az, file, System::getenv);
  }

  /** The section, {@code <name>_env} secrets looked up in {@code env}. */
  static AzureSettings read(JsonNode az, Path file, UnaryOperator<String> env) {
    if (az == null || az.isNull()) {
      return AzureSettings.defaults();
    }
    checkKnown(az, SECTION, Set.of("account", "endpoint", "connection_string", "connection_string_env", "account_key",
        "account_key_env", "sas_token", "sas_token_env", "request_timeout", "max_attempts"), file);
    String endpoint = az.has("endpoint") ? az.get("endpoint").asText() : null;
    if (endpoint != null) {
      try {
        URI u = new URI(endpoint);
        if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
            || u.getHost() == null) {
          throw new URISyntaxException(endpoint, "not an http(s) URL with a host");
        }
      } catch (URISyntaxException e) {
        throw SpecErrors.invalid(file, SECTION + ".endpoint", "'" + endpoint + "' is not an http(s) URL",
            "write e.g. endpoint: https://myaccount.blob.core.windows.net");
      }
    }
    Duration timeout = az.has("request_timeout")
        ? Duration.ofNanos(durationMicros(az.get("request_timeout").asText(), file, SECTION + ".request_timeout")
            * 1000)
        : StorageSettings.DEFAULT_REQUEST_TIMEOUT;
    int attempts = az.has("max_attempts") ? positiveInt(az.get("max_attempts"), file, SECTION + ".max_attempts")
        : StorageSettings.DEFAULT_MAX_ATTEMPTS;
    return new AzureSettings(az.has("account") ? az.get("account").asText() : null, endpoint,
        HttpSecuritySection.secret(az, "connection_string", SECTION, file, env),
        HttpSecuritySection.secret(az, "account_key", SECTION, file, env),
        HttpSecuritySection.secret(az, "sas_token", SECTION, file, env), timeout, attempts);
  }
}
