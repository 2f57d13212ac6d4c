package io.dimstream.spec;

/**
 * How a dimension treats fields an event leaves out and fields the spec does not declare (spec keys
 * {@code missing_fields}, {@code unavailable_value} and {@code unknown_fields}).
 *
 * @param missing          what an attribute absent from an upsert means
 * @param unavailableValue a text value that means "unchanged, keep the previous value" whatever {@code missing}
 *                         says (Debezium's placeholder for unchanged TOASTed columns); null = none
 * @param unknown          what a field that is not a declared column does to an event
 */
public record FieldRules(MissingFields missing, String unavailableValue, UnknownFields unknown) {
  /** Debezium's default placeholder ({@code unavailable.value.placeholder}). */
  public static final String DEBEZIUM_UNAVAILABLE = "__debezium_unavailable_value";
  public static final FieldRules DEFAULT = new FieldRules(MissingFields.NULL, DEBEZIUM_UNAVAILABLE, UnknownFields.WARN);

  /** What an attribute absent from an upsert means. */
  public enum MissingFields {
    /** It sets the attribute to null (an event is a full row). */
    NULL,
    /** It keeps the value of the version open just before the event in sequence order. */
    KEEP
  }

  /** What a field the spec does not declare does to an event. */
  public enum UnknownFields {
    /** Counted and logged once per field name; the event is applied. */
    WARN,
    /** The event goes to the dead-letter topic as {@code unknown-field}. */
    REJECT,
    /** Nothing. */
    IGNORE
  }

  public boolean keepsMissing() {
    return missing == MissingFields.KEEP;
  }
}
