package io.dimstream.chaos;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;

/**
 * The run's passwords (key stores, the brokers' own SCRAM user, the clients' SCRAM user): random per run, handed to
 * child processes in their environment, never on a command line (which {@code ps} shows to everyone).
 */
record Secrets(String storePassword, String brokerPassword, String clientPassword) {
  static final String BROKER_USER = "broker";
  static final String CLIENT_USER = "dimstream";
  static final String ENV_STORE = "CHAOS_STORE_PASSWORD";
  static final String ENV_BROKER = "CHAOS_BROKER_PASSWORD";
  static final String ENV_CLIENT = "CHAOS_CLIENT_PASSWORD";

  static Secrets random() {
    SecureRandom r = new SecureRandom();
    return new Secrets(token(r), token(r), token(r));
  }

  static Secrets fromEnvironment() {
    return new Secrets(require(ENV_STORE), require(ENV_BROKER), require(ENV_CLIENT));
  }

  Map<String, String> environment() {
    return Map.of(ENV_STORE, storePassword, ENV_BROKER, brokerPassword, ENV_CLIENT, clientPassword);
  }

  private static String token(SecureRandom r) {
    byte[] b = new byte[18];
    r.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  private static String require(String name) {
    String v = System.getenv(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException("the environment variable " + name + " is not set; the chaos harness sets it "
          + "for the processes it starts");
    }
    return v;
  }

  @Override
  public String toString() {
    return "Secrets[redacted]";
  }
}
