package io.dimstream.table;

import io.dimstream.table.internal.actions.Protocol;

/** The protocol a table's latest version holds, for tests outside this package. */
public final class Protocols {
  private Protocols() {}

  public static Protocol latest(DeltaTable t) {
    return t.latest().state.protocol;
  }
}
