package io.dimstream.spec;

/** How records on the changes topic are encoded. */
public enum InputFormat {
  /** One JSON object per record, field names as in the spec. */
  JSON("json"),
  /** Avro binary (no framing), written with the spec's Avro schema. */
  AVRO("avro"),
  /** A Debezium JSON envelope: {@code before}, {@code after}, {@code op}, {@code ts_ms}, {@code source}. */
  DEBEZIUM_JSON("debezium-json");

  private final String specName;

  InputFormat(String specName) {
    this.specName = specName;
  }

  public String specName() {
    return specName;
  }
}
