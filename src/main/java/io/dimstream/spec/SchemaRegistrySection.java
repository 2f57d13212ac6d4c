package io.dimstream.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.UnaryOperator;

/** Reads {@code schema_registry}; secrets may come from environment variables. */
final class SchemaRegistrySection {
  private static final String SECTION = "schema_registry";

  private SchemaRegistrySection() {}

  static SchemaRegistrySettings read(JsonNode node, Path file, UnaryOperator<String> env) {
    if (!node.isObject()) {
      throw SpecErrors.invalid(file, SECTION, "expected a mapping", "write e.g. 'schema_registry: {url: "
          + "http://registry:8081}'");
    }
    SpecNodes.checkKnown(node, SECTION, Set.of("url", "basic_auth", "trust_store", "trust_store_password",
        "trust_store_password_env", "cache_size"), file);
    URI url = url(node.get("url"), file);
    String user = null;
    String password = null;
    if (node.has("basic_auth")) {
      JsonNode auth = node.get("basic_auth");
      SpecNodes.checkKnown(auth, SECTION + ".basic_auth", Set.of("user", "user_env", "password", "password_env"),
          file);
      user = HttpSecuritySection.secret(auth, "user", SECTION + ".basic_auth", file, env);
      password = HttpSecuritySection.secret(auth, "password", SECTION + ".basic_auth", file, env);
      if (user == null || password == null) {
        throw SpecErrors.invalid(file, SECTION + ".basic_auth", "needs a user and a password",
            "set user_env and password_env to the names of environment variables (or user and password inline)");
      }
    }
    Path trustStore = null;
    if (node.has("trust_store")) {
      trustStore = Path.of(node.get("trust_store").asText());
      if (!Files.isReadable(trustStore)) {
        throw SpecErrors.invalid(file, SECTION + ".trust_store", "cannot read " + trustStore.toAbsolutePath(),
            "give the path of a readable PKCS12 or JKS trust store (relative paths start at the working directory)");
      }
    }
    String trustPassword = HttpSecuritySection.secret(node, "trust_store_password", SECTION, file, env);
    int cacheSize = SchemaRegistrySettings.DEFAULT_CACHE_SIZE;
    if (node.has("cache_size")) {
      JsonNode n = node.get("cache_size");
      if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 1) {
        throw SpecErrors.invalid(file, SECTION + ".cache_size", "expected a positive whole number, got " + n,
            "give how many writer schemas to keep, e.g. 1000");
      }
      cacheSize = n.asInt();
    }
    return new SchemaRegistrySettings(url, user, password, trustStore, trustPassword, cacheSize);
  }

  private static URI url(JsonNode n, Path file) {
    String fix = "give the base URL of a Confluent-compatible API, e.g. http://registry:8081 (Apicurio: "
        + "http://registry:8080/apis/ccompat/v7)";
    if (n == null || !n.isTextual() || n.asText().isBlank()) {
      throw SpecErrors.invalid(file, SECTION + ".url", "missing", fix);
    }
    String text = n.asText().trim().replaceAll("/+$", "");
    try {
      URI uri = new URI(text);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw SpecErrors.invalid(file, SECTION + ".url", "'" + text + "' is not an http or https URL", fix);
      }
      return uri;
    } catch (URISyntaxException e) {
      throw SpecErrors.invalid(file, SECTION + ".url", "cannot read '" + text + "' as a URL: " + e.getReason(), fix);
    }
  }
}
