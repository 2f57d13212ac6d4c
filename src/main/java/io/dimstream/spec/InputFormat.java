package io.dimstream.spec;

/** How records on the changes topic are encoded. */
public enum InputFormat {
  /** One JSON object per record, field names as in the spec. */
  JSON("json"),
  /** Avro binary (no framing), written with the spec's Avro schema. */
  AVRO("avro"),
  /** A Debezium JSON envelope: {@code before}, {@code after}, {@code op}, {@code ts_ms}, {@code source}. */
  DEBEZIUM_JSON("debezium-json"),
  /**
   * A Debezium envelope written by Kafka Connect's AvroConverter: Avro in the Confluent wire format, its writer schema
   * in the spec's {@code schema_registry}; read as {@link #DEBEZIUM_JSON} once decoded.
   */
  DEBEZIUM_AVRO("debezium-avro");

  private final String specName;

  InputFormat(String specName) {
    this.specName = specName;
  }

  public String specName() {
    return specName;
  }

  /** Whether records are Debezium change envelopes ({@code before}, {@code after}, {@code op}, {@code source}). */
  public boolean isDebezium() {
    return this == DEBEZIUM_JSON || this == DEBEZIUM_AVRO;
  }

  /** Whether records are in the Confluent wire format, their writer schemas in a schema registry. */
  public boolean readsRegistry() {
    return this == DEBEZIUM_AVRO;
  }
}
