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

  // computed once: wireName() is called for every version record the topology emits
  private final String wire = name().toLowerCase(Locale.ROOT);

  public String wireName() {
    return wire;
  }

  /**
   * The kind a wire name stands for, in any letter case.
   *
   * @throws IllegalArgumentException when {@code s} names no kind
   */
  public static ChangeKind fromWire(String s) {
    // the compactor decodes one per version record: the wire's own names without upper-casing a copy first
    for (ChangeKind k : KINDS) {
      if (k.wire.equals(s)) {
        return k;
      }
    }
    return valueOf(s.toUpperCase(Locale.ROOT));
  }

  private static final ChangeKind[] KINDS = values();
}
