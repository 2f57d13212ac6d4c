package io.dimstream.registry;

import java.util.Objects;

/**
 * One schema as the registry holds it.
 *
 * @param id   the id records carry in their wire-format header
 * @param type {@code AVRO}, {@code JSON} or {@code PROTOBUF}; the API leaves it out for Avro, which this reads as
 *             {@code AVRO}
 * @param text the schema itself (for Avro: its JSON)
 */
public record RegisteredSchema(int id, String type, String text) {
  public static final String AVRO = "AVRO";

  public RegisteredSchema {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(text, "text");
  }
}
