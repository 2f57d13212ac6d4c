package io.dimstream.table.internal.commit;

import io.dimstream.config.ColumnType;
import io.dimstream.table.internal.actions.Protocol;
import java.util.ArrayList;
import java.util.List;

/**
 * The type changes a table follows with Delta's {@code typeWidening} table feature, and the protocol that carries it.
 *
 * <p>Of the widenings the Delta protocol allows, dimstream takes those whose older values every one of its own
 * encodings reads unchanged as the wider type: {@code int → long} (Avro and JSON write both as the same varint or
 * number) and {@code decimal(p,s) → decimal(p',s)} with {@code p' > p} (same unscaled value, same scale). The others
 * the protocol allows ({@code int → double}, integers to decimals, a decimal's scale up) would misread version records
 * already in the versions topic and the state stores, so they are refused like any other type change.
 */
final class TypeWidening {
  /** The stable name of the reader and writer feature. */
  static final String FEATURE = Protocol.TYPE_WIDENING;

  private TypeWidening() {}

  /** Whether a column stored as {@code from} may become {@code to} without rewriting history. */
  static boolean allows(ColumnType from, ColumnType to) {
    if (from.kind() == ColumnType.Kind.INT && to.kind() == ColumnType.Kind.LONG) {
      return true;
    }
    return from.kind() == ColumnType.Kind.DECIMAL && to.kind() == ColumnType.Kind.DECIMAL
        && from.scale() == to.scale() && to.precision() > from.precision();
  }

  /**
   * The protocol {@code p} needs so that readers convert older files: {@code p} itself when it already lists the
   * feature; a reader 3 / writer 7 protocol with the feature added; a reader 1 protocol moved to reader 3 / writer 7
   * with only the features it had (explicit, or implied by writer version 2) plus this one. Null when {@code p} is
   * governed by something dimstream cannot extend.
   */
  static Protocol protocolFor(Protocol p) {
    boolean hasReader = p.readerFeatureList().contains(FEATURE);
    boolean hasWriter = p.writerFeatureList().contains(FEATURE);
    if (p.minReaderVersion() == 3 && p.minWriterVersion() == 7) {
      return hasReader && hasWriter ? p
          : new Protocol(3, 7, with(p.readerFeatureList()), with(p.writerFeatureList()));
    }
    if (p.minReaderVersion() != 1) {
      return null;
    }
    List<String> writer;
    if (p.minWriterVersion() == 7) {
      writer = with(p.writerFeatureList());
    } else if (p.minWriterVersion() == 2) {
      writer = with(List.of("appendOnly", "invariants"));
    } else if (p.minWriterVersion() == 1) {
      writer = with(List.of());
    } else {
      return null;
    }
    return new Protocol(3, 7, List.of(FEATURE), writer);
  }

  private static List<String> with(List<String> features) {
    List<String> out = new ArrayList<>(features);
    if (!out.contains(FEATURE)) {
      out.add(FEATURE);
    }
    return out;
  }
}
