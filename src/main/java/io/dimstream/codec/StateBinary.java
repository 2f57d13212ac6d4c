package io.dimstream.codec;

import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The binary forms of one dimension's change events, {@link StoredEvent}s and {@link KeyState}s, as the topology
 * keeps them in its state stores and carries a decoded event on its repartition topic. They replace the
 * {@link EventJson} value forms, which cost a JSON tree per read and per write on the hot path; the reader still
 * accepts those (state and repartition records written by an older release), told apart by their first byte.
 *
 * <p>Layout: one format byte ({@value #FORMAT}; {@value #FORMAT_1} for the first binary form; a JSON form starts with
 * {@code [}), then
 * <ul>
 *   <li>event: sequence, flags (bit 0 delete), attribute count (0 or all), attributes;</li>
 *   <li>version: 0, or 1, the valid_from sequence, 0/1 and the valid_to sequence, the attribute count (format 2
 *       only) and the attributes;</li>
 *   <li>stored event: event, then the version open after it; key state: sequence, then the open version.</li>
 * </ul>
 * A sequence is its part count then each part as a zig-zag varint; an attribute is a tag (0 null, 1 value,
 * 2 {@link Absent}) and, for a value, its column type's encoding: long/int/date (epoch day) as zig-zag varints,
 * double as its 8 IEEE bytes, decimal as scale and unscaled two's-complement bytes, boolean as one byte, string as
 * UTF-8 with a varint length, timestamp as epoch seconds and nanoseconds. A widened column (int to long, a decimal's
 * precision) reads its narrower values unchanged. Keys are not part of a value: their canonical bytes stay
 * {@link EventJson#keyBytes}, the caller supplies the key.
 *
 * <p>Records written under an earlier spec ({@link StateLayouts}: columns were added since) hold fewer attributes;
 * their count identifies the layout, and each value is read into the current column of its name. An added column
 * reads as null, or as {@link Absent} in an upsert under {@code missing_fields: keep}, as a change decoder would give
 * a field the event lacks. A format-1 version holds no count: inside a stored event it shares its event's layout,
 * and otherwise (a key state, or after an event without attributes) it is read in the one known layout whose
 * decoding consumes the record exactly, the current layout first. The JSON forms of an older release are read in
 * the earlier layouts the same way ({@link EventJson#EventJson(DimensionSpec, StateLayouts)}).
 *
 * <p>Immutable and thread-safe; decoding bytes of neither form, or of a layout not known, throws
 * {@link IllegalArgumentException}.
 */
public final class StateBinary {
  /** The first byte of every binary form this class writes: versions carry their attribute count. */
  public static final byte FORMAT = 2;
  /** The first byte of the first binary form, still read: versions without an attribute count. */
  public static final byte FORMAT_1 = 1;

  private static final byte NULL = 0;
  private static final byte VALUE = 1;
  private static final byte ABSENT = 2;

  private final EventJson json;
  private final ColumnType.Kind[] kinds;
  private final ColumnType.Kind[] keyKinds;
  /** Where the values of a record of an earlier layout go. */
  private final EarlierLayouts earlier;
  /** Attribute counts to try for a format-1 version of unknown layout: the current one first, then newest first. */
  private final int[] counts;
  /** What an added column holds in an upsert written under an earlier layout: null, or Absent (missing_fields: keep). */
  private final Object addedInUpsert;

  /** For state that holds only {@code spec}'s own attribute layout. */
  public StateBinary(DimensionSpec spec) {
    this(spec, StateLayouts.NONE);
  }

  /**
   * For state that may also hold records of the {@code earlier} layouts.
   *
   * @throws IllegalArgumentException when an earlier layout names a column that is not an attribute of
   *     {@code spec}, has as many attributes as {@code spec} in another order, or shares its count with another
   */
  public StateBinary(DimensionSpec spec, StateLayouts earlier) {
    this.json = new EventJson(spec, earlier);
    this.keyKinds = spec.keyColumns().stream().map(Column::type).map(ColumnType::kind)
        .toArray(ColumnType.Kind[]::new);
    this.kinds = spec.attributeColumns().stream().map(Column::type).map(ColumnType::kind)
        .toArray(ColumnType.Kind[]::new);
    this.addedInUpsert = spec.fields().keepsMissing() ? Absent.VALUE : null;
    this.earlier = new EarlierLayouts(spec, earlier);
    this.counts = this.earlier.counts();
  }

  /** Whether {@code bytes} are in a form of this class rather than an older JSON form. */
  public static boolean isBinary(byte[] bytes) {
    return bytes.length > 0 && isFormatByte(bytes[0]);
  }

  /** Whether {@code b} is the first byte of a binary form (this release's or the first). */
  public static boolean isFormatByte(byte b) {
    return b == FORMAT || b == FORMAT_1;
  }

  /**
   * A key in a compact binary form (each value as an attribute of its column's type, no format byte), for keys kept
   * outside the stores, such as backfill's spilled events; equal keys give equal bytes. Not the canonical key bytes
   * of the topics and stores ({@link EventJson#keyBytes}).
   */
  public byte[] encodeKey(BusinessKey key) {
    if (key.values().size() != keyKinds.length) {
      throw new IllegalArgumentException("expected " + keyKinds.length + " key values, got " + key.values().size());
    }
    ByteWriter out = new ByteWriter(16);
    for (int i = 0; i < keyKinds.length; i++) {
      value(out, key.values().get(i), keyKinds[i]);
    }
    return out.bytes();
  }

  /** The inverse of {@link #encodeKey}. */
  public BusinessKey decodeKey(byte[] bytes) {
    In in = new In(bytes, 0);
    Object[] values = new Object[keyKinds.length];
    for (int i = 0; i < keyKinds.length; i++) {
      values[i] = value(in, keyKinds[i]);
    }
    return BusinessKey.of(values);
  }

  /** An event without its key. */
  public byte[] encodeEvent(ChangeEvent event) {
    ByteWriter out = new ByteWriter(64);
    out.write(FORMAT);
    event(out, event);
    return out.bytes();
  }

  public ChangeEvent decodeEvent(BusinessKey key, byte[] bytes) {
    if (!isBinary(bytes)) {
      return json.decodeEvent(key, bytes);
    }
    In in = new In(bytes);
    return event(in, key);
  }

  /** A stored event without its key. */
  public byte[] encode(StoredEvent stored) {
    return encode(stored, encodeVersion(stored.openAfter()));
  }

  /** A stored event whose version open after it is already {@code versionBytes} ({@link #encodeVersion}). */
  public byte[] encode(StoredEvent stored, byte[] versionBytes) {
    ByteWriter out = new ByteWriter(64 + versionBytes.length);
    out.write(FORMAT);
    event(out, stored.event());
    out.write(versionBytes);
    return out.bytes();
  }

  public StoredEvent decodeStoredEvent(BusinessKey key, byte[] bytes) {
    if (!isBinary(bytes)) {
      return json.decodeStoredEvent(key, bytes);
    }
    In in = new In(bytes);
    ChangeEvent e = event(in, key);
    if (bytes[0] == FORMAT) {
      return new StoredEvent(e, version(in, key));
    }
    // format 1: the version was written with the event's layout; an event without attributes does not say which
    int n = in.eventCount == 0 ? -1 : in.eventCount;
    return new StoredEvent(e, n < 0 ? versionOfUnknownLayout(bytes, in.position(), key) : version(in, key, n));
  }

  /** A key state without its key. */
  public byte[] encode(KeyState state) {
    return encode(state, encodeVersion(state.open()));
  }

  /** A key state whose open version is already {@code versionBytes} ({@link #encodeVersion}). */
  public byte[] encode(KeyState state, byte[] versionBytes) {
    ByteWriter out = new ByteWriter(16 + versionBytes.length);
    out.write(FORMAT);
    sequence(out, state.lastSequence());
    out.write(versionBytes);
    return out.bytes();
  }

  public KeyState decodeKeyState(BusinessKey key, byte[] bytes) {
    if (!isBinary(bytes)) {
      return json.decodeKeyState(key, bytes);
    }
    In in = new In(bytes);
    Sequence s = sequence(in);
    return new KeyState(s, bytes[0] == FORMAT ? version(in, key) : versionOfUnknownLayout(bytes, in.position(), key));
  }

  /**
   * The part of a stored event or key state that holds a version (or none), so one version shared by both (the
   * fast path stores the same open version twice) is encoded once.
   */
  public byte[] encodeVersion(Version v) {
    ByteWriter out = new ByteWriter(v == null ? 1 : 64);
    if (v == null) {
      out.write(0);
      return out.bytes();
    }
    out.write(1);
    sequence(out, v.validFrom());
    if (v.validTo() == null) {
      out.write(0);
    } else {
      out.write(1);
      sequence(out, v.validTo());
    }
    writeAttributes(out, v.attributes());
    return out.bytes();
  }

  /**
   * A version's attributes as this class writes them inside a version: their count, then each value. For other
   * records that keep the dimension's attributes (the enrichment's state), so that they follow the spec's evolution
   * as the topology's own state does.
   */
  public void writeAttributes(ByteWriter out, List<Object> values) {
    out.varint(kinds.length);
    attributes(out, values, "version attributes");
  }

  /**
   * Attributes {@link #writeAttributes} wrote, under this spec or an earlier layout (told by their count): in the
   * spec's columns, the columns added since null.
   *
   * @throws IllegalArgumentException when no known layout has as many attributes
   */
  public List<Object> readAttributes(ByteReader in) {
    int n = (int) in.varint();
    return n == kinds.length ? attributes(in) : earlierAttributes(in, n, null, "a version");
  }

  /**
   * {@code n} attributes written without their count, in the known layout of {@code n} columns ({@link #layoutCounts}),
   * as a record of a form that did not carry the count holds them; in the spec's columns, the columns added since null.
   */
  public List<Object> readAttributes(ByteReader in, int n) {
    return n == kinds.length ? attributes(in) : earlierAttributes(in, n, null, "a version");
  }

  /**
   * The attribute counts of every known layout, the current one first, then the earlier ones newest first: the ones
   * to try, in order, for records that do not say theirs.
   */
  public int[] layoutCounts() {
    return counts.clone();
  }

  private void event(ByteWriter out, ChangeEvent e) {
    sequence(out, e.sequence());
    out.write(e.delete() ? 1 : 0);
    // as in the JSON form: a delete's attributes are ignored by the fold; keep them only when they are complete
    if (e.delete() && e.attributes().size() != kinds.length) {
      out.varint(0);
    } else {
      out.varint(kinds.length);
      attributes(out, e.attributes(), "event attributes");
    }
  }

  private ChangeEvent event(In in, BusinessKey key) {
    Sequence s = sequence(in);
    boolean delete = (in.read() & 1) == 1;
    int n = (int) in.varint();
    in.eventCount = n;
    List<Object> values = n == 0 ? List.of()
        : n == kinds.length ? attributes(in)
        : earlierAttributes(in, n, delete ? null : addedInUpsert, "an event");
    return new ChangeEvent(key, s, delete, values);
  }

  /** A format-2 version: its attribute count says its layout. */
  private Version version(In in, BusinessKey key) {
    if (in.read() == 0) {
      return null;
    }
    Sequence from = sequence(in);
    Sequence to = in.read() == 0 ? null : sequence(in);
    return new Version(key, from, to, readAttributes(in));
  }

  /** A format-1 version written with {@code n} attributes. */
  private Version version(In in, BusinessKey key, int n) {
    if (in.read() == 0) {
      return null;
    }
    Sequence from = sequence(in);
    Sequence to = in.read() == 0 ? null : sequence(in);
    return new Version(key, from, to, readAttributes(in, n));
  }

  /**
   * A format-1 version from {@code at} to the end of {@code bytes} whose layout nothing says: the first known layout
   * (the current one, then the newest earlier one first) whose decoding consumes the record exactly. Only records
   * written before versions carried their count get here.
   */
  private Version versionOfUnknownLayout(byte[] bytes, int at, BusinessKey key) {
    for (int n : counts) {
      In in = new In(bytes, at);
      try {
        Version v = version(in, key, n);
        if (in.position() == bytes.length) {
          return v;
        }
      } catch (RuntimeException e) {
        // not this layout: its values do not decode as these columns' types
      }
    }
    throw new IllegalArgumentException("no known attribute layout reads the version in this stored state (the "
        + "spec's " + kinds.length + " attributes, earlier layouts " + earlier.earlier() + "); it was written under a"
        + " spec whose layout the table property " + StateLayouts.PROPERTY + " does not list");
  }

  /**
   * {@code n} attribute values of an earlier layout, each put at its column's current position; the columns added
   * since hold {@code added}.
   */
  private List<Object> earlierAttributes(ByteReader in, int n, Object added, String what) {
    int[] to = earlier.positions(n, what);
    Object[] values = new Object[kinds.length];
    Arrays.fill(values, added);
    for (int i = 0; i < n; i++) {
      int at = to[i];
      byte tag = in.read();
      values[at] = switch (tag) {
        case NULL -> null;
        case ABSENT -> Absent.VALUE;
        case VALUE -> value(in, kinds[at]);
        default -> throw new IllegalArgumentException("unknown attribute tag " + tag + " in stored state");
      };
    }
    return Arrays.asList(values);
  }

  private static void sequence(ByteWriter out, Sequence s) {
    ColumnBinary.writeSequence(out, s);
  }

  private static Sequence sequence(In in) {
    return ColumnBinary.readSequence(in);
  }

  private void attributes(ByteWriter out, List<Object> values, String what) {
    if (values.size() != kinds.length) {
      throw new IllegalArgumentException("expected " + kinds.length + " " + what + ", got " + values.size());
    }
    for (int i = 0; i < kinds.length; i++) {
      Object v = values.get(i);
      if (v == null) {
        out.write(NULL);
      } else if (v == Absent.VALUE) {
        out.write(ABSENT);
      } else {
        out.write(VALUE);
        value(out, v, kinds[i]);
      }
    }
  }

  private List<Object> attributes(ByteReader in) {
    List<Object> out = new ArrayList<>(kinds.length);
    for (ColumnType.Kind kind : kinds) {
      byte tag = in.read();
      out.add(switch (tag) {
        case NULL -> null;
        case ABSENT -> Absent.VALUE;
        case VALUE -> value(in, kind);
        default -> throw new IllegalArgumentException("unknown attribute tag " + tag + " in stored state");
      });
    }
    return out;
  }

  private static void value(ByteWriter out, Object v, ColumnType.Kind kind) {
    ColumnBinary.write(out, v, kind);
  }

  private static Object value(ByteReader in, ColumnType.Kind kind) {
    return ColumnBinary.read(in, kind);
  }

  /** A reader over one encoded value; past its end, {@link IllegalArgumentException}. */
  private static final class In extends ByteReader {
    /** The attribute count of the last event read. */
    private int eventCount;

    In(byte[] buf) {
      this(buf, 1); // after the format byte
    }

    In(byte[] buf, int at) {
      super(buf, at, "stored state");
    }
  }
}
