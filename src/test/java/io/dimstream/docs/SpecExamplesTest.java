package io.dimstream.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.query.http.TestCertificates;
import io.dimstream.spec.DimensionSpecLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every YAML example of the docs loads: a whole dimension spec as it stands, an enrichment spec beside the bundled
 * customers dimension, and a fragment (a {@code service:} or {@code output:} section) merged into the bundled
 * customers spec.
 */
class SpecExamplesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void shouldLoadEveryYamlExampleOfTheDocs(@TempDir Path dir) throws Exception {
    Files.copy(Path.of("examples/customers.yaml"), dir.resolve("customers.yaml"));
    ObjectNode base = (ObjectNode) YAML.readTree(Path.of("examples/customers.yaml").toFile());
    List<String> failed = new ArrayList<>();
    int loaded = 0;
    for (DocExamples.Block block : DocExamples.blocks()) {
      if (!block.language().equals("yaml")) {
        continue;
      }
      JsonNode root = YAML.readTree(block.text());
      if (root == null || !root.isObject() || root.has("services")) {
        continue; // not a spec: a docker-compose file
      }
      Path file = dir.resolve("example-" + loaded + ".yaml");
      try {
        if (root.has("facts")) {
          Files.writeString(file, block.text());
          EnrichmentSpecLoader.load(file);
        } else if (root.has("name")) {
          ObjectNode spec = (ObjectNode) root;
          if (spec.has("source")) {
            // a database-sourced spec gets its columns, key and sequence from the table at start
            for (String fromDatabase : List.of("columns", "key", "sequence")) {
              if (!spec.has(fromDatabase)) {
                spec.set(fromDatabase, base.get(fromDatabase));
              }
            }
          }
          if (spec.has("schema") && !Path.of(spec.get("schema").asText()).isAbsolute()) {
            // the docs give the schema relative to the spec's place among the examples
            spec.put("schema", Path.of("examples").resolve(spec.get("schema").asText()).toAbsolutePath()
                .normalize().toString());
          }
          withRegistrySecrets(spec, dir);
          Files.writeString(file, YAML.writeValueAsString(spec));
          DimensionSpecLoader.load(file);
        } else {
          ObjectNode spec = base.deepCopy();
          root.fields().forEachRemaining(e -> spec.set(e.getKey(), e.getValue()));
          withTestSecrets(spec, dir);
          withRegistrySecrets(spec, dir);
          Files.writeString(file, YAML.writeValueAsString(spec));
          DimensionSpecLoader.load(file);
        }
        loaded++;
      } catch (RuntimeException e) {
        failed.add(block.page() + ":\n" + block.text() + "-> " + e.getMessage());
      }
    }
    assertThat(failed).as("YAML examples in the docs that do not load").isEmpty();
    assertThat(loaded).as("YAML examples loaded").isGreaterThan(10);
  }

  /**
   * A registry login and trust store named by variables and files of the user's machine: inline values and a file of
   * the test stand in for them.
   */
  private static void withRegistrySecrets(ObjectNode spec, Path dir) throws java.io.IOException {
    if (spec.path("schema_registry") instanceof ObjectNode registry && registry.has("trust_store")) {
      registry.put("trust_store", Files.write(dir.resolve("registry-truststore.p12"), new byte[0]).toString());
      if (registry.has("trust_store_password_env")) {
        registry.remove("trust_store_password_env");
        registry.put("trust_store_password", "test-password");
      }
    }
    if (spec.path("schema_registry").path("basic_auth") instanceof ObjectNode auth) {
      for (String secret : java.util.List.of("user", "password")) {
        if (auth.has(secret + "_env")) {
          auth.remove(secret + "_env");
          auth.put(secret, "test-" + secret);
        }
      }
    }
  }

  /**
   * The TLS and token of an endpoint example name files and a variable of the user's machine: the test's own
   * certificate files and an inline token stand in for them, so the rest of the example is loaded as written.
   */
  private static void withTestSecrets(ObjectNode spec, Path dir) throws Exception {
    JsonNode http = spec.path("service").path("http");
    if (http.has("tls")) {
      ObjectNode tls = (ObjectNode) http.get("tls");
      TestCertificates.Identity endpoint = TestCertificates.create(dir, "endpoint");
      if (tls.has("cert")) {
        tls.put("cert", endpoint.certPem().toString());
        tls.put("key", endpoint.keyPem().toString());
      }
      if (tls.has("client_ca")) {
        tls.put("client_ca", TestCertificates.create(dir, "clients").certPem().toString());
      }
    }
    if (http.path("auth").has("token_env")) {
      ObjectNode auth = (ObjectNode) http.get("auth");
      auth.remove("token_env");
      auth.put("token", "a-test-token");
    }
    // an Azure secret named by a variable: an inline secret of the same kind stands in for it
    JsonNode azure = spec.path("service").path("storage").path("azure");
    if (azure instanceof ObjectNode a) {
      for (String secret : java.util.List.of("account_key", "sas_token", "connection_string")) {
        if (a.has(secret + "_env")) {
          a.remove(secret + "_env");
          a.put(secret, secret.equals("account_key") ? "dGVzdC1rZXk=" : "sv=2024-01-01&sig=test");
        }
      }
    }
  }
}
