package io.dimstream.spec;

/**
 * Which events are deletes. The column a rule reads describes the event, not the entity, so it is never
 * an attribute of the versions.
 */
public sealed interface DeleteRule {

  /** No event is a delete (Kafka tombstones are still rejected to the DLQ as {@code tombstone-not-a-delete}). */
  record None() implements DeleteRule {}

  /** A delete when {@code column} holds {@code equals} (compared as text): {@code delete: {column: op, equals: d}}. */
  record ColumnEquals(String column, String equals) implements DeleteRule {}

  /** A delete when the boolean {@code column} is true: {@code delete: {column: is_deleted}}. */
  record BooleanColumn(String column) implements DeleteRule {}

  /** A Debezium envelope with {@code op: d}: {@code delete: debezium}. */
  record DebeziumOp() implements DeleteRule {}

  /**
   * A Kafka tombstone (null value) is a delete of the record key's business key, at the record's timestamp:
   * {@code delete: tombstone}.
   */
  record Tombstone() implements DeleteRule {}

  /**
   * A delete when the expression (CEL, over the event's columns) is true: {@code delete: {when: "event.status ==
   * 'deleted'"}}. It reads no single column, so every column it uses stays an attribute.
   */
  record When(String expression) implements DeleteRule {}

  /** The column this rule reads from the event, or null when it reads none. */
  default String column() {
    if (this instanceof ColumnEquals c) {
      return c.column();
    }
    if (this instanceof BooleanColumn b) {
      return b.column();
    }
    return null;
  }
}
