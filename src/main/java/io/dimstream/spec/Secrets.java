package io.dimstream.spec;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which settings hold secrets, and how settings are shown where they may reach a log or a message: a secret's value
 * never, only {@link #REDACTED}. A Kafka client property is a secret when its name says so: every property Kafka's
 * clients declare a password ({@code sasl.jaas.config}, {@code ssl.key.password}, {@code ssl.keystore.password},
 * {@code ssl.truststore.password}, {@code ssl.keystore.key}, {@code sasl.oauthbearer.client.credentials.client.secret},
 * {@code sasl.oauthbearer.assertion.private.key.passphrase}) matches, and so do the secrets of a schema registry's or a
 * plugin's properties ({@code basic.auth.user.info}, {@code ...token}, {@code ...api.key}).
 */
public final class Secrets {
  /** What is shown in place of a secret. */
  public static final String REDACTED = "***";
  private static final List<String> SECRET_NAME_PARTS = List.of("password", "passphrase", "secret", "token",
      "credential", "jaas", "user.info", "private.key", "keystore.key", "api.key", "apikey");

  private Secrets() {}

  /** Whether the value of the Kafka client property {@code name} is a secret. */
  public static boolean isSecretProperty(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return SECRET_NAME_PARTS.stream().anyMatch(lower::contains);
  }

  /** The properties in name order, each secret's value replaced by {@link #REDACTED}. */
  public static Map<String, String> redacted(Map<String, String> properties) {
    Map<String, String> out = new TreeMap<>();
    properties.forEach((k, v) -> out.put(k, isSecretProperty(k) ? REDACTED : v));
    return out;
  }
}
