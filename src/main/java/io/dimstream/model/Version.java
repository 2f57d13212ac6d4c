package io.dimstream.model;

import java.util.List;

/**
 * One version of an entity, valid over the half-open interval {@code [validFrom, validTo)}.
 *
 * <p>Its identity is {@code (key, validFrom)}: a later change to the same version (a close-out, a type-1
 * update, a correction by a late event) carries the same identity.
 *
 * @param validTo    the sequence of the event that closed it (exclusive); null while the version is open
 * @param attributes values in the order of {@code DimensionSpec.attributeColumns()}
 */
public record Version(BusinessKey key, Sequence validFrom, Sequence validTo, List<Object> attributes) {
  public Version {
    attributes = FrozenList.of(attributes);
  }

  /** Its identity {@code (key, validFrom)}. */
  public VersionId id() {
    return new VersionId(key, validFrom);
  }

  /** Whether the version is open ({@code validTo} is null), i.e. {@code is_current}. */
  public boolean isCurrent() {
    return validTo == null;
  }

  /**
   * Whether the version is valid at {@code t}, a point on the first sequence part (the part times are given in:
   * epoch microseconds, epoch days or the number itself): {@code validFrom.first() <= t < validTo.first()}, an
   * open version from its start on. The one test of validity every as-of question uses.
   */
  public boolean validAt(long t) {
    return validFrom.first() <= t && (validTo == null || t < validTo.first());
  }

  /** Whether the version is valid at {@code t} compared on the whole sequence: {@code validFrom <= t < validTo}. */
  public boolean validAt(Sequence t) {
    return validFrom.compareTo(t) <= 0 && (validTo == null || t.compareTo(validTo) < 0);
  }

  public Version closedAt(Sequence to) {
    return new Version(key, validFrom, to, attributes);
  }

  public Version withAttributes(List<Object> newAttributes) {
    return new Version(key, validFrom, validTo, newAttributes);
  }
}
