package io.dimstream.enrich;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.dimstream.codec.ByteReader;
import io.dimstream.codec.ByteWriter;
import io.dimstream.codec.ColumnBinary;
import io.dimstream.codec.EventJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The values the enricher keeps: one key's versions (with the newest sequence seen for it), a compact JSON array
 * with each version in the topology's own form ({@link EventJson#versionNode}); and one stored fact with its revision
 * and what its last record showed, in a binary form (written for every fact, so it costs no JSON tree): a format byte
 * ({@value #FACT_FORMAT}), the revision as a varint, 0 (waiting) or 1 and what was shown (found, then 0 or 1 and the
 * valid_from sequence, then per added attribute a tag, 0 null or 1 value, and the value), then the fact
 * ({@link FactBinary} without its format byte). A stored fact written as a JSON array by an earlier release is still
 * read. Immutable and thread-safe.
 */
final class EnrichmentState {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
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

  private final EventJson versionForms;
  private final List<ColumnType> shownTypes;
  private final ColumnType.Kind[] shownKinds;
  private final List<ColumnType> factTypes;
  private final FactBinary facts;

  EnrichmentState(EnrichmentSpec spec) {
    versionForms = new EventJson(spec.dimension());
    shownTypes = spec.attributes().stream().map(EnrichmentSpec.Attribute::type).toList();
    shownKinds = shownTypes.stream().map(ColumnType::kind).toArray(ColumnType.Kind[]::new);
    factTypes = spec.facts().columns().stream().map(Column::type).toList();
    facts = new FactBinary(spec);
  }

  byte[] encode(KeyVersions kv) {
    ArrayNode n = NODES.arrayNode();
    n.add(kv.newest());
    for (Version v : kv.versions()) {
      n.add(versionForms.versionNode(v));
    }
    return write(n);
  }

  KeyVersions decodeVersions(BusinessKey key, byte[] bytes) {
    if (bytes == null) {
      return KeyVersions.NONE;
    }
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
      for (int i = 0; i < shownKinds.length; i++) {
        Object v = shown.attributes().get(i);
        if (v == null) {
          out.write(0);
        } else {
          out.write(1);
          ColumnBinary.write(out, v, shownKinds[i]);
        }
      }
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
      List<Object> attributes = new ArrayList<>(shownKinds.length);
      for (ColumnType.Kind kind : shownKinds) {
        attributes.add(in.read() == 1 ? ColumnBinary.read(in, kind) : null);
      }
      shown = new Shown(found, validFrom, attributes);
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

  private static List<Object> values(JsonNode n, List<ColumnType> types) {
    List<Object> out = new ArrayList<>(types.size());
    for (int i = 0; i < types.size(); i++) {
      out.add(ColumnValues.fromJson(n.get(i), types.get(i)));
    }
    return out;
  }

  private static byte[] write(JsonNode n) {
    try {
      return JSON.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode enrichment state", e);
    }
  }

  private static JsonNode read(byte[] bytes) {
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("not an enrichment state record: " + e.getMessage(), e);
    }
  }
}
