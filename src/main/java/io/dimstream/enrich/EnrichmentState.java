package io.dimstream.enrich;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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
 * The values the enricher keeps, as compact JSON arrays: one key's versions (with the newest sequence seen for it;
 * each version in the topology's own form, {@link EventJson#versionNode}) and one stored fact (with what its last
 * record showed). Immutable and thread-safe.
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

  private final EventJson versionForms;
  private final List<ColumnType> shownTypes;
  private final List<ColumnType> factTypes;

  EnrichmentState(EnrichmentSpec spec) {
    versionForms = new EventJson(spec.dimension());
    shownTypes = spec.attributes().stream().map(EnrichmentSpec.Attribute::type).toList();
    factTypes = spec.facts().columns().stream().map(Column::type).toList();
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
    ArrayNode n = NODES.arrayNode();
    n.add(values(f.fact().values(), factTypes));
    n.add(f.revision());
    if (f.shown() != null) {
      n.add(f.shown().found());
      n.add(f.shown().validFrom() == null ? NODES.nullNode() : EventJson.sequenceNode(f.shown().validFrom()));
      n.add(values(f.shown().attributes(), shownTypes));
    }
    return write(n);
  }

  StoredFact decodeFact(byte[] bytes) {
    JsonNode n = read(bytes);
    Fact fact = new Fact(values(n.get(0), factTypes));
    Shown shown = n.size() < 3 ? null : new Shown(n.get(2).asBoolean(),
        n.get(3).isNull() ? null : EventJson.sequence(n.get(3)), values(n.get(4), shownTypes));
    return new StoredFact(fact, n.get(1).asLong(), shown);
  }

  private static ArrayNode values(List<Object> values, List<ColumnType> types) {
    ArrayNode a = NODES.arrayNode(values.size());
    for (int i = 0; i < values.size(); i++) {
      a.add(ColumnValues.toJson(values.get(i), types.get(i)));
    }
    return a;
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
