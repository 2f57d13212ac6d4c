package io.dimstream.enrich;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.dimstream.model.BusinessKey;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the enrichment reads off a fact: its business key (from the join columns, in the dimension's key types), its
 * time (in the units of the dimension's first sequence column) and its fact key bytes. Immutable and thread-safe.
 */
public final class FactShape {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final int[] joinPositions;
  private final List<ColumnType> keyTypes;
  private final int[] factKeyPositions;
  private final List<ColumnType> factKeyTypes;
  /** Whether every fact key column is a long or an int, whose JSON is its decimal digits. */
  private final boolean integralFactKey;
  private final int timePosition;
  private final ColumnType timeType;

  public FactShape(EnrichmentSpec spec) {
    EnrichmentSpec.Facts facts = spec.facts();
    joinPositions = spec.joinColumns().stream().mapToInt(facts::index).toArray();
    keyTypes = spec.dimension().keyColumns().stream().map(Column::type).toList();
    factKeyPositions = facts.key().stream().mapToInt(facts::index).toArray();
    factKeyTypes = facts.key().stream().map(c -> facts.column(c).type()).toList();
    integralFactKey = factKeyTypes.stream()
        .allMatch(t -> t.kind() == ColumnType.Kind.LONG || t.kind() == ColumnType.Kind.INT);
    timePosition = facts.index(facts.time());
    timeType = facts.timeType();
  }

  /** The business key the fact names, in the dimension's key types (an int join column feeds a long key). */
  public BusinessKey businessKey(Fact fact) {
    List<Object> values = new ArrayList<>(joinPositions.length);
    for (int i = 0; i < joinPositions.length; i++) {
      values.add(asKeyType(fact.values().get(joinPositions[i]), keyTypes.get(i)));
    }
    return new BusinessKey(values);
  }

  /** The fact's time as the long a sequence value orders by (epoch microseconds, epoch days, or the number). */
  public long time(Fact fact) {
    return ColumnValues.sequenceLong(fact.values().get(timePosition), timeType);
  }

  /** The fact key as a compact JSON array ({@code [1001]}): the record key of its enriched records. */
  public byte[] factKeyBytes(Fact fact) {
    if (integralFactKey) { // the common order_id: no JSON tree for what is "[" digits "]" (written for every record)
      StringBuilder b = new StringBuilder(24).append('[');
      for (int i = 0; i < factKeyPositions.length; i++) {
        b.append(i == 0 ? "" : ",").append(((Number) fact.values().get(factKeyPositions[i])).longValue());
      }
      return b.append(']').toString().getBytes(StandardCharsets.US_ASCII);
    }
    ArrayNode n = NODES.arrayNode(factKeyPositions.length);
    for (int i = 0; i < factKeyPositions.length; i++) {
      n.add(ColumnValues.toJson(fact.values().get(factKeyPositions[i]), factKeyTypes.get(i)));
    }
    try {
      return JSON.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render a fact key", e);
    }
  }

  private static Object asKeyType(Object v, ColumnType keyType) {
    if (v instanceof Integer i && keyType.kind() == ColumnType.Kind.LONG) {
      return i.longValue();
    }
    if (v instanceof Long l && keyType.kind() == ColumnType.Kind.INT) {
      return Math.toIntExact(l);
    }
    return v;
  }
}
