package io.dimstream.service;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.query.http.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A service whose spec holds every kind of secret (Kafka SASL and SSL passwords, a schema registry's credentials, the
 * store endpoint's user info, the query endpoint's keystore password and bearer token) starts, answers and stops,
 * with everything it and its Kafka clients log captured (Kafka's client loggers at INFO, where they print their
 * configs): no secret appears in any line, while the settings themselves are logged.
 */
class SecretsNotLoggedIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final String JAAS_PASSWORD = "jaas-pw-91c2e";
  private static final String KEYSTORE_PASSWORD = "ks-pw-83d1f";
  private static final String KEY_PASSWORD = "key-pw-77ab0";
  private static final String REGISTRY_PASSWORD = "registry-pw-55e0c";
  private static final String STORE_PASSWORD = "store-pw-2b9f4";
  private static final String TOKEN = "bearer-token-c0ffee42";

  @TempDir
  Path dir;

  @Test
  void shouldLogTheSettingsWithoutAnyOfTheirSecrets() throws Exception {
    TestCertificates.Identity identity = TestCertificates.create(dir, "secrets");
    Path file = ExampleSpec.write(dir, "customers_secrets", "customers_secrets", dir.resolve("data"), """
          kafka:
            sasl.jaas.config: 'org.apache.kafka.common.security.scram.ScramLoginModule required username="dim" \
        password="%s";'
            ssl.keystore.password: %s
            ssl.key.password: %s
            basic.auth.user.info: "registry:%s"
          storage: {s3: {endpoint: "http://minio:%s@127.0.0.1:9"}}
        """.formatted(JAAS_PASSWORD, KEYSTORE_PASSWORD, KEY_PASSWORD, REGISTRY_PASSWORD, STORE_PASSWORD), "");
    Files.writeString(file, Files.readString(file).replace("http: {port: 0}", "http: {port: 0, tls: {keystore: "
        + identity.keystore() + ", password: " + TestCertificates.PASSWORD + "}, auth: {token: " + TOKEN + "}}"));
    List<String> secrets = List.of(JAAS_PASSWORD, KEYSTORE_PASSWORD, KEY_PASSWORD, REGISTRY_PASSWORD, STORE_PASSWORD,
        TOKEN, TestCertificates.PASSWORD);

    LoggerContext logback = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = logback.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logger kafkaClients = logback.getLogger("org.apache.kafka");
    Level kafkaLevel = kafkaClients.getLevel();
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    root.addAppender(seen);
    kafkaClients.setLevel(Level.INFO);
    try {
      DimensionSpec spec = DimensionSpecLoader.load(file);
      assertThat(spec.service().kafka()).containsEntry("ssl.key.password", KEY_PASSWORD);
      assertThat(spec.service().httpSecurity().token()).isEqualTo(TOKEN);
      assertThat(spec.toString()).as("the spec as printed").doesNotContain(secrets).contains("***");
      try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
        assertThat(service.httpPort()).isPositive();
      }
    } finally {
      kafkaClients.setLevel(kafkaLevel);
      root.detachAppender(seen);
    }

    List<ILoggingEvent> events = new ArrayList<>(seen.list);
    assertThat(events).as("the settings are logged")
        .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("Settings of customers_secrets")
            .contains("ssl.key.password=***").contains("sasl.jaas.config=***"));
    assertThat(events).as("Kafka's clients logged their configs")
        .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("ConsumerConfig values"));
    for (ILoggingEvent e : events) {
      String line = e.getFormattedMessage()
          + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy()));
      for (String secret : secrets) {
        assertThat(line).as("a line of %s", e.getLoggerName()).doesNotContain(secret);
      }
    }
  }
}
