package io.dimstream.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Which settings hold secrets, and how settings are shown where they may reach a log or a message: a secret's value
 * never, only {@link #REDACTED}. A Kafka client property is a secret when Kafka declares it a password (as its own
 * config logs hide it: {@code sasl.jaas.config}, {@code ssl.key.password}, {@code ssl.keystore.key}, ...) or, for a
 * property Kafka does not know (a schema registry's, a plugin's), when its name says so (password, secret, token,
 * credentials, {@code jaas}, {@code user.info}).
 */
public final class Secrets {
  /** What is shown in place of a secret. */
  public static final String REDACTED = "***";
  private static final List<String> SECRET_NAME_PARTS = List.of("password", "passphrase", "secret", "token",
      "credential", "jaas", "user.info", "private.key", "api.key", "apikey");
  private static final List<ConfigDef> KAFKA_CONFIGS = List.of(ConsumerConfig.configDef(), ProducerConfig.configDef(),
      AdminClientConfig.configDef());

  private Secrets() {}

  /** Whether the value of the Kafka client property {@code name} is a secret. */
  public static boolean isSecretProperty(String name) {
    for (ConfigDef def : KAFKA_CONFIGS) {
      ConfigDef.ConfigKey key = def.configKeys().get(name);
      if (key != null && key.type == ConfigDef.Type.PASSWORD) {
        return true;
      }
    }
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
