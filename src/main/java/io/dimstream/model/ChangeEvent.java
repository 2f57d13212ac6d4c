package io.dimstream.model;

import java.util.List;

/**
 * One decoded, validated change of one entity.
 *
 * @param attributes values in the order of {@code DimensionSpec.attributeColumns()}, nulls allowed; {@link Absent#VALUE}
 *                   for an attribute the event leaves out and the fold must keep; for a delete they are ignored
 *                   (may be empty)
 */
public record ChangeEvent(BusinessKey key, Sequence sequence, boolean delete, List<Object> attributes) {
  public ChangeEvent {
    attributes = FrozenList.of(attributes);
  }

  public static ChangeEvent upsert(BusinessKey key, Sequence sequence, List<Object> attributes) {
    return new ChangeEvent(key, sequence, false, attributes);
  }

  /** Whether some attribute is {@link Absent#VALUE}, so the fold must fill it from the version open before. */
  public boolean partial() {
    return attributes.contains(Absent.VALUE);
  }

  public static ChangeEvent delete(BusinessKey key, Sequence sequence) {
    return new ChangeEvent(key, sequence, true, List.of());
  }
}
