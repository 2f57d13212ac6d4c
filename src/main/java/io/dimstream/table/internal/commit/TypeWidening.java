package io.dimstream.table.internal.commit;

import io.dimstream.types.ColumnType;

/**
 * The type changes a table follows with Delta's {@code typeWidening} table feature (the protocol that carries it is
 * {@link io.dimstream.table.internal.actions.TableFeatures}'s to decide).
 *
 * <p>Of the widenings the Delta protocol allows, dimstream takes those whose older values every one of its own
 * encodings reads unchanged as the wider type: {@code int → long} (Avro and JSON write both as the same varint or
 * number) and {@code decimal(p,s) → decimal(p',s)} with {@code p' > p} (same unscaled value, same scale). The others
 * the protocol allows ({@code int → double}, integers to decimals, a decimal's scale up) would misread version records
 * already in the versions topic and the state stores, so they are refused like any other type change.
 */
final class TypeWidening {
  private TypeWidening() {}

  /** Whether a column stored as {@code from} may become {@code to} without rewriting history. */
  static boolean allows(ColumnType from, ColumnType to) {
    return from.widensTo(to);
  }
}
