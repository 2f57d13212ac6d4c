package io.dimstream.model;

/**
 * The value of an attribute an upsert leaves out under {@code missing_fields: keep} (or carries as the connector's
 * "unchanged" placeholder): distinct from null, which sets the attribute to null. The fold replaces it with the value
 * of the version open just before the event in sequence order (null when none is open); it never reaches a version.
 */
public enum Absent {
  VALUE;

  @Override
  public String toString() {
    return "<absent>";
  }
}
