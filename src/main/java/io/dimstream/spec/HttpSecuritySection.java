package io.dimstream.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.UnaryOperator;

/** Reads {@code service.http.tls} and {@code service.http.auth}; secrets may come from environment variables. */
final class HttpSecuritySection {
  private HttpSecuritySection() {}

  static HttpSecurity read(JsonNode http, Path file, UnaryOperator<String> env) {
    HttpSecurity.Tls tls = http.has("tls") ? tls(http.get("tls"), file, env) : null;
    String token = null;
    if (http.has("auth")) {
      JsonNode auth = http.get("auth");
      SpecNodes.checkKnown(auth, "service.http.auth", Set.of("token", "token_env"), file);
      token = secret(auth, "token", "service.http.auth", file, env);
      if (token == null) {
        throw SpecErrors.invalid(file, "service.http.auth", "no token given",
            "set token_env: NAME_OF_AN_ENVIRONMENT_VARIABLE (or token: the token itself)");
      }
    }
    return new HttpSecurity(tls, token);
  }

  private static HttpSecurity.Tls tls(JsonNode node, Path file, UnaryOperator<String> env) {
    SpecNodes.checkKnown(node, "service.http.tls",
        Set.of("cert", "key", "keystore", "password", "password_env", "client_ca"), file);
    Path cert = path(node, "cert", file);
    Path key = path(node, "key", file);
    Path keystore = path(node, "keystore", file);
    Path clientCa = path(node, "client_ca", file);
    String password = secret(node, "password", "service.http.tls", file, env);
    boolean pem = cert != null || key != null;
    if (pem && keystore != null) {
      throw SpecErrors.invalid(file, "service.http.tls", "both a PEM certificate (cert, key) and a keystore are given",
          "give either cert and key, or keystore and password");
    }
    if (pem && (cert == null || key == null)) {
      throw SpecErrors.invalid(file, "service.http.tls." + (cert == null ? "cert" : "key"), "missing: a PEM "
          + "certificate needs its private key and the key its certificate", "give both cert and key");
    }
    if (!pem && keystore == null) {
      throw SpecErrors.invalid(file, "service.http.tls", "no certificate given",
          "give cert and key (PEM files) or keystore (a PKCS12 file) and password_env");
    }
    if (keystore != null && password == null) {
      throw SpecErrors.invalid(file, "service.http.tls.password", "missing: the keystore needs its password",
          "set password_env: NAME_OF_AN_ENVIRONMENT_VARIABLE (or password: the password itself)");
    }
    return new HttpSecurity.Tls(cert, key, keystore, password, clientCa);
  }

  private static Path path(JsonNode node, String field, Path file) {
    if (!node.has(field)) {
      return null;
    }
    Path p = Path.of(node.get(field).asText());
    if (!Files.isReadable(p)) {
      throw SpecErrors.invalid(file, "service.http.tls." + field, "cannot read " + p.toAbsolutePath(),
          "give the path of an existing, readable file (relative paths start at the working directory)");
    }
    return p;
  }

  /** The secret given inline as {@code name} or named by {@code name_env}; null when neither is given. */
  static String secret(JsonNode node, String name, String section, Path file, UnaryOperator<String> env) {
    if (node.has(name) && node.has(name + "_env")) {
      throw SpecErrors.invalid(file, section + "." + name, "given both inline and as " + name + "_env",
          "keep only " + name + "_env");
    }
    if (node.has(name)) {
      String value = node.get(name).asText();
      if (value.isEmpty()) {
        throw SpecErrors.invalid(file, section + "." + name, "empty", "give a non-empty value");
      }
      return value;
    }
    if (node.has(name + "_env")) {
      String variable = node.get(name + "_env").asText();
      String value = env.apply(variable);
      if (value == null || value.isEmpty()) {
        throw SpecErrors.invalid(file, section + "." + name + "_env", "the environment variable " + variable
            + " is not set or empty", "export " + variable + " before starting the service");
      }
      return value;
    }
    return null;
  }
}
