package io.dimstream.enrich;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.dimstream.codec.ByteReader;
import io.dimstream.codec.ByteWriter;
import io.dimstream.codec.ColumnBinary;
import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.StateLayouts;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The values the enricher keeps, in binary forms (written for every fact and every version change, so they cost no
 * JSON tree; values as {@link ColumnBinary} gives them, each after a tag: 0 null, 1 value, 2 {@link Absent}):
 * <ul>
 *   <li>one key's versions: a format byte ({@value #VERSIONS_FORMAT}), the newest sequence seen for the key as a
 *       zig-zag varint, the version count, and per version its valid_from sequence, 0 or 1 and its valid_to
 *       sequence, and its attributes (all of the dimension's) as the dimension's own state keeps a version's
 *       ({@link StateBinary#writeAttributes}: their count, then the values), so that they are read after the
 *       dimension's spec gained columns or widened one ({@link StateLayouts}) as the dimension's state is. Format
 *       {@value #VERSIONS_FORMAT_1} held no count: its versions are read in the known layout that consumes the record
 *       exactly, the current one first;</li>
 *   <li>one stored fact: a format byte ({@value #FACT_FORMAT}), its revision as a varint, 0 (waiting) or 1 and what
 *       its last record showed (found, 0 or 1 and the valid_from sequence, the added attributes), then the fact
 *       ({@link FactBinary} without its format byte).</li>
 * </ul>
 * Both as written by an earlier release, JSON arrays (the versions in the topology's own form,
 * {@link EventJson#versionNode}), are still read. A stored fact is read in the enrichment spec it was written under
 * ({@link #keptUnder}); the enricher rewrites the kept facts in the current one when the spec changed. Immutable and
 * thread-safe.
 */
final class EnrichmentState {
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  /** One key's versions sorted by {@code valid_from}, and the newest first sequence part seen for the key. */
  record KeyVersions(long newest, List<Version> versions) {
    static final KeyVersions NONE = new KeyVersions(Long.MIN_VALUE, List.of());
  }

  /** What a fact's last record showed: whether a version was found, its valid_from, and the added attributes. */
  record Shown(boolean found, Sequence validFrom, List<Object> attributes) {}

  /** A kept fact: its revision so far and what its last record showed; both 0/null while it waits. */
  record StoredFact(Fact fact, long revision, Shown shown) {}

  /** The first byte of a stored fact's binary form; the JSON form of an earlier release starts with {@code [}. */
  static final byte FACT_FORMAT = 1;
  /** The first byte of a key's versions in their binary form (likewise): each version's attributes with their count. */
  static final byte VERSIONS_FORMAT = 2;
  /** The first byte of the first binary form of a key's versions, still read: attributes without their count. */
  static final byte VERSIONS_FORMAT_1 = 1;

  private final EnrichmentSpec spec;
  private final StateLayouts dimensionLayouts;
  private final EventJson versionForms;
  private final StateBinary versionAttributes;
  private final List<ColumnType> shownTypes;
  private final ColumnType.Kind[] shownKinds;
  private final List<ColumnType> factTypes;
  private final FactBinary facts;

  /** For state that holds only the dimension spec's own attribute layout. */
  EnrichmentState(EnrichmentSpec spec) {
    this(spec, StateLayouts.NONE);
  }

  /**
   * For state that may also hold versions of the dimension's {@code dimensionLayouts} (the specs its table was evolved
   * from).
   *
   * @throws IllegalArgumentException when those layouts do not fit the dimension's spec ({@link StateBinary})
   */
  EnrichmentState(EnrichmentSpec spec, StateLayouts dimensionLayouts) {
    this(spec, dimensionLayouts, spec.attributes().stream().map(EnrichmentSpec.Attribute::type).toList());
  }

  private EnrichmentState(EnrichmentSpec spec, StateLayouts dimensionLayouts, List<ColumnType> shownTypes) {
    this.spec = spec;
    this.dimensionLayouts = dimensionLayouts;
    versionForms = new EventJson(spec.dimension(), dimensionLayouts);
    versionAttributes = new StateBinary(spec.dimension(), dimensionLayouts);
    this.shownTypes = List.copyOf(shownTypes);
    shownKinds = shownTypes.stream().map(ColumnType::kind).toArray(ColumnType.Kind[]::new);
    factTypes = spec.facts().columns().stream().map(Column::type).toList();
    facts = new FactBinary(spec);
  }

  /**
   * This state for stored facts written under an earlier enrichment spec whose attributes were {@code layout}'s
   * (their values read as the dimension's columns of those names now are; the fact columns must be readable as this
   * spec's, {@link EnrichmentLayout#factsUnreadableAs}).
   *
   * @throws IllegalArgumentException when one of those attributes is no column of the dimension
   */
  EnrichmentState keptUnder(EnrichmentLayout layout) {
    List<ColumnType> types = new ArrayList<>();
    for (String name : layout.attributes()) {
      Column c = spec.dimension().attributeColumns().stream().filter(a -> a.name().equals(name)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("the kept facts show the attribute '" + name + "', which is"
              + " no attribute column of the dimension " + spec.dimension().name()));
      types.add(c.type());
    }
    return new EnrichmentState(spec, dimensionLayouts, types);
  }

  byte[] encode(KeyVersions kv) {
    ByteWriter out = new ByteWriter(16 + 48 * kv.versions().size());
    out.write(VERSIONS_FORMAT);
    out.zigzag(kv.newest());
    out.varint(kv.versions().size());
    for (Version v : kv.versions()) {
      ColumnBinary.writeSequence(out, v.validFrom());
      if (v.validTo() == null) {
        out.write(0);
      } else {
        out.write(1);
        ColumnBinary.writeSequence(out, v.validTo());
      }
      versionAttributes.writeAttributes(out, v.attributes());
    }
    return out.bytes();
  }

  KeyVersions decodeVersions(BusinessKey key, byte[] bytes) {
    if (bytes == null) {
      return KeyVersions.NONE;
    }
    if (bytes.length > 0 && bytes[0] == '[') {
      return decodeJsonVersions(key, bytes);
    }
    if (bytes.length > 0 && bytes[0] == VERSIONS_FORMAT) {
      return decodeVersions(key, new ByteReader(bytes, 1, "a key's versions"), -1);
    }
    if (bytes.length > 0 && bytes[0] == VERSIONS_FORMAT_1) {
      return decodeFirstFormVersions(key, bytes);
    }
    throw new IllegalArgumentException("not an enrichment state record: a key's versions starting with byte "
        + (bytes.length == 0 ? "none" : bytes[0]));
  }

  /** Versions whose attributes carry their count ({@code count} -1), or have {@code count} values each. */
  private KeyVersions decodeVersions(BusinessKey key, ByteReader in, int count) {
    long newest = in.zigzag();
    int n = (int) in.varint();
    List<Version> versions = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Sequence from = ColumnBinary.readSequence(in);
      Sequence to = in.read() == 1 ? ColumnBinary.readSequence(in) : null;
      versions.add(new Version(key, from, to, count < 0 ? versionAttributes.readAttributes(in)
          : versionAttributes.readAttributes(in, count)));
    }
    return new KeyVersions(newest, versions);
  }

  /**
   * Versions in the first binary form, which does not say how many attributes each holds: one record was written
   * under one spec, so it is read in the first known layout (the current one, then the newest earlier one first)
   * whose decoding consumes it exactly.
   */
  private KeyVersions decodeFirstFormVersions(BusinessKey key, byte[] bytes) {
    for (int count : versionAttributes.layoutCounts()) {
      ByteReader in = new ByteReader(bytes, 1, "a key's versions");
      try {
        KeyVersions kv = decodeVersions(key, in, count);
        if (in.atEnd()) {
          return kv;
        }
      } catch (RuntimeException e) {
        // not this layout: its values do not decode as these columns' types
      }
    }
    throw new IllegalArgumentException("no known attribute layout of the dimension " + spec.dimension().name()
        + " reads the versions of key " + key + " in the state of enrichment " + spec.name() + " (the spec's "
        + spec.dimension().attributeColumns().size() + " attributes, earlier layouts " + dimensionLayouts.earlier()
        + "); they were written under a spec whose layout the table property " + StateLayouts.PROPERTY
        + " does not list");
  }

  /** A key's versions as an earlier release wrote them: [newest, version, version, ...]. */
  private KeyVersions decodeJsonVersions(BusinessKey key, byte[] bytes) {
    JsonNode n = read(bytes);
    List<Version> versions = new ArrayList<>(n.size() - 1);
    for (int i = 1; i < n.size(); i++) {
      versions.add(versionForms.version(key, n.get(i)));
    }
    return new KeyVersions(n.get(0).asLong(), versions);
  }

  byte[] encode(StoredFact f) {
    ByteWriter out = new ByteWriter(64);
    out.write(FACT_FORMAT);
    out.varint(f.revision());
    Shown shown = f.shown();
    if (shown == null) {
      out.write(0);
    } else {
      out.write(1);
      out.write(shown.found() ? 1 : 0);
      if (shown.validFrom() == null) {
        out.write(0);
      } else {
        out.write(1);
        ColumnBinary.writeSequence(out, shown.validFrom());
      }
      values(out, shown.attributes(), shownKinds);
    }
    facts.write(out, f.fact());
    return out.bytes();
  }

  StoredFact decodeFact(byte[] bytes) {
    if (bytes.length > 0 && bytes[0] == '[') {
      return decodeJsonFact(bytes);
    }
    if (bytes.length == 0 || bytes[0] != FACT_FORMAT) {
      throw new IllegalArgumentException("not an enrichment state record: a stored fact starting with byte "
          + (bytes.length == 0 ? "none" : bytes[0]));
    }
    ByteReader in = new ByteReader(bytes, 1, "a stored fact");
    long revision = in.varint();
    Shown shown = null;
    if (in.read() == 1) {
      boolean found = in.read() == 1;
      Sequence validFrom = in.read() == 1 ? ColumnBinary.readSequence(in) : null;
      shown = new Shown(found, validFrom, values(in, shownKinds));
    }
    return new StoredFact(facts.read(in), revision, shown);
  }

  /** A stored fact as an earlier release wrote it: [fact values, revision, found, valid_from, attributes]. */
  private StoredFact decodeJsonFact(byte[] bytes) {
    JsonNode n = read(bytes);
    Fact fact = new Fact(values(n.get(0), factTypes));
    Shown shown = n.size() < 3 ? null : new Shown(n.get(2).asBoolean(),
        n.get(3).isNull() ? null : EventJson.sequence(n.get(3)), values(n.get(4), shownTypes));
    return new StoredFact(fact, n.get(1).asLong(), shown);
  }

  /** Each value as a tag (0 null, 1 value, 2 {@link Absent}) and, for a value, its {@link ColumnBinary} form. */
  private static void values(ByteWriter out, List<Object> values, ColumnType.Kind[] kinds) {
    if (values.size() != kinds.length) {
      throw new IllegalArgumentException("expected " + kinds.length + " values, got " + values.size());
    }
    for (int i = 0; i < kinds.length; i++) {
      Object v = values.get(i);
      if (v == null) {
        out.write(0);
      } else if (v == Absent.VALUE) {
        out.write(2);
      } else {
        out.write(1);
        ColumnBinary.write(out, v, kinds[i]);
      }
    }
  }

  private static List<Object> values(ByteReader in, ColumnType.Kind[] kinds) {
    List<Object> out = new ArrayList<>(kinds.length);
    for (ColumnType.Kind kind : kinds) {
      byte tag = in.read();
      out.add(switch (tag) {
        case 0 -> null;
        case 1 -> ColumnBinary.read(in, kind);
        case 2 -> Absent.VALUE;
        default -> throw new IllegalArgumentException("unknown value tag " + tag + " in enrichment state");
      });
    }
    return out;
  }

  private static List<Object> values(JsonNode n, List<ColumnType> types) {
    List<Object> out = new ArrayList<>(types.size());
    for (int i = 0; i < types.size(); i++) {
      out.add(ColumnValues.fromJson(n.get(i), types.get(i)));
    }
    return out;
  }

  private static JsonNode read(byte[] bytes) {
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("not an enrichment state record: " + e.getMessage(), e);
    }
  }
}
