package io.dimstream.model;

import java.util.Locale;

/** Why a version record was emitted; carried in the {@code dimstream.change} header and the row's change field. */
public enum ChangeKind {
  /** A version that did not exist before. */
  OPEN,
  /** A version that was open and is now closed (only {@code valid_to} changed). */
  CLOSE,
  /** An existing version changed otherwise: type-1 update, or reshaped by a late event. */
  CORRECT,
  /** A version that no longer exists (a late event made it redundant); the record value is null. */
  RETRACT;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static ChangeKind fromWire(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
