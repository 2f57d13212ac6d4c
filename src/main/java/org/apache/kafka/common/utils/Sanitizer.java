package org.apache.kafka.common.utils;

/**
 * Debezium 3.6 is built on Kafka 4.3 and names its JMX metrics with this class, which Kafka 4.4 moved to
 * {@code org.apache.kafka.common.utils.internals}: the one call it makes, kept where it looks for it. Remove once
 * Debezium is built on Kafka 4.4.
 */
public final class Sanitizer {
  private Sanitizer() {}

  public static String jmxSanitize(String name) {
    return org.apache.kafka.common.utils.internals.Sanitizer.jmxSanitize(name);
  }
}
