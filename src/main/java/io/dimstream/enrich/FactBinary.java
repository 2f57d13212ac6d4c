package io.dimstream.enrich;

import io.dimstream.codec.ByteReader;
import io.dimstream.codec.ByteWriter;
import io.dimstream.codec.ColumnBinary;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.util.ArrayList;
import java.util.List;

/**
 * A decoded fact in a compact binary form: a format byte ({@value #FORMAT}), then per fact column a tag (0 null,
 * 1 value) and the value's {@link ColumnBinary} form. The facts' repartition carries it from the step that keys a
 * fact to the join, so the join does not read the record's JSON or Avro a second time; the enrichment's state keeps a
 * fact in it. Immutable and thread-safe.
 */
public final class FactBinary {
  /** The first byte of the form. */
  public static final byte FORMAT = 1;
  private static final byte NULL = 0;
  private static final byte VALUE = 1;

  private final ColumnType.Kind[] kinds;

  public FactBinary(EnrichmentSpec spec) {
    kinds = spec.facts().columns().stream().map(Column::type).map(ColumnType::kind).toArray(ColumnType.Kind[]::new);
  }

  public byte[] encode(Fact fact) {
    ByteWriter out = new ByteWriter(16 + 12 * kinds.length);
    out.write(FORMAT);
    write(out, fact);
    return out.bytes();
  }

  /**
   * @throws IllegalArgumentException when {@code bytes} are not a fact of this form with these columns
   */
  public Fact decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0 || bytes[0] != FORMAT) {
      throw new IllegalArgumentException("not a fact in its binary form (first byte "
          + (bytes == null || bytes.length == 0 ? "missing" : bytes[0]) + ")");
    }
    ByteReader in = new ByteReader(bytes, 1, "a fact in its binary form");
    Fact f = read(in);
    if (!in.atEnd()) {
      throw new IllegalArgumentException("a fact in its binary form has " + (bytes.length - in.position())
          + " bytes more than its " + kinds.length + " columns");
    }
    return f;
  }

  void write(ByteWriter out, Fact fact) {
    List<Object> values = fact.values();
    for (int i = 0; i < kinds.length; i++) {
      Object v = values.get(i);
      if (v == null) {
        out.write(NULL);
      } else {
        out.write(VALUE);
        ColumnBinary.write(out, v, kinds[i]);
      }
    }
  }

  Fact read(ByteReader in) {
    List<Object> values = new ArrayList<>(kinds.length);
    for (ColumnType.Kind kind : kinds) {
      byte tag = in.read();
      values.add(switch (tag) {
        case NULL -> null;
        case VALUE -> ColumnBinary.read(in, kind);
        default -> throw new IllegalArgumentException("unknown value tag " + tag + " in a fact's binary form");
      });
    }
    return new Fact(values);
  }
}
