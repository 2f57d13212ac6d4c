package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.TextNode;
import io.dimstream.model.Absent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.FieldRules;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builds a ChangeEvent from typed column values, applying the spec's column roles and delete rule. */
final class EventAssembler {

  /** Gives the typed value of spec column {@code index}, or null when absent; rejects bad types. */
  @FunctionalInterface
  interface ColumnSource {
    Object value(int index) throws RejectedRecord;
  }

  private final DimensionSpec spec;
  private final Column[] columns;
  private final int[] keyIndex;
  private final int[] sequenceIndex;
  private final int[] attributeIndex;
  private final int deleteIndex;
  private final DeleteRule rule;
  private final boolean tombstoneFromTimestamp;
  private final boolean keepMissing;
  private final String unavailable;
  private final FieldRules.UnknownFields unknownFields;
  private final java.util.Set<String> declared;
  /**
   * Whether a delete keeps the attribute columns its record carries: only a spec with {@code skip_when} reads them
   * (the condition judges a delete by them); the fold ignores a delete's attributes.
   */
  private final boolean deleteCarriesColumns;

  EventAssembler(DimensionSpec spec) {
    this.spec = spec;
    this.columns = spec.columns().toArray(new Column[0]);
    this.keyIndex = indexes(spec.key());
    this.sequenceIndex = indexes(spec.sequence());
    this.attributeIndex = indexes(spec.attributeColumns().stream().map(Column::name).toList());
    this.rule = spec.deleteRule();
    this.deleteIndex = rule.column() == null ? -1 : indexOf(rule.column());
    this.tombstoneFromTimestamp = sequenceIndex.length == 1
        && columns[sequenceIndex[0]].type().kind() == ColumnType.Kind.TIMESTAMP;
    this.keepMissing = spec.fields().keepsMissing();
    this.unavailable = spec.fields().unavailableValue();
    this.unknownFields = spec.fields().unknown();
    this.declared = new java.util.HashSet<>(spec.columns().stream().map(Column::name).toList());
    this.deleteCarriesColumns = spec.expressions().skipWhen() != null;
  }

  /**
   * The value of a row field: {@link Absent#VALUE} when the field is missing under {@code missing_fields: keep} or
   * holds the spec's "unavailable" placeholder, else its typed value (null for JSON null, or a missing field under
   * {@code missing_fields: null}). {@link #assemble} reads Absent as null for key, sequence and delete columns.
   */
  Object field(JsonNode node, Column column) throws RejectedRecord {
    if (node == null || node.isMissingNode()) {
      return keepMissing ? Absent.VALUE : null;
    }
    if (unavailable != null && node.isTextual() && unavailable.equals(node.textValue())) {
      return Absent.VALUE;
    }
    return typed(node, column);
  }

  /**
   * The fields of {@code row} the spec does not declare, in row order, under {@code unknown_fields: warn}; none
   * under {@code ignore}. Throws {@code unknown-field} under {@code reject}.
   */
  List<String> unknownFields(JsonNode row) throws RejectedRecord {
    return unknownFields(row::fieldNames);
  }

  /** As {@link #unknownFields(JsonNode)}, over a row's field names in row order. */
  List<String> unknownFields(Iterable<String> names) throws RejectedRecord {
    if (unknownFields == FieldRules.UnknownFields.IGNORE) {
      return List.of();
    }
    List<String> out = null;
    for (String name : names) {
      if (!declared.contains(name)) {
        if (unknownFields == FieldRules.UnknownFields.REJECT) {
          throw ChangeErrors.unknownField(name, spec.source());
        }
        if (out == null) {
          out = new ArrayList<>(2);
        }
        out.add(name);
      }
    }
    return out == null ? List.of() : out;
  }

  Column[] columns() {
    return columns;
  }

  int indexOf(String name) {
    for (int i = 0; i < columns.length; i++) {
      if (columns[i].name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no column " + name);
  }

  /**
   * Reads key, then sequence, then (for an upsert) the attributes, so the first problem reported is the most
   * basic one. {@code forcedDelete} overrides the delete rule when the format itself says (Debezium op d). Under
   * {@code skip_when} a delete also reads the attribute columns its record carries (type-checked as an upsert's;
   * missing or unavailable ones are null), so that the condition sees the record as it was sent.
   */
  ChangeEvent assemble(ColumnSource source, boolean forcedDelete) throws RejectedRecord {
    return assemble(source, forcedDelete, deleteCarriesColumns);
  }

  private ChangeEvent assemble(ColumnSource source, boolean forcedDelete, boolean deleteColumns)
      throws RejectedRecord {
    Object[] key = new Object[keyIndex.length];
    for (int j = 0; j < keyIndex.length; j++) {
      Object v = present(source.value(keyIndex[j]));
      if (v == null) {
        throw ChangeErrors.missingKey(columns[keyIndex[j]], spec.key());
      }
      key[j] = v;
    }
    long[] parts = new long[sequenceIndex.length];
    for (int j = 0; j < sequenceIndex.length; j++) {
      Column c = columns[sequenceIndex[j]];
      Object v = present(source.value(sequenceIndex[j]));
      if (v == null) {
        throw ChangeErrors.missingSequence(c, spec.sequence());
      }
      parts[j] = ColumnValues.sequenceLong(v, c.type());
    }
    BusinessKey businessKey = new BusinessKey(Arrays.asList(key));
    Sequence sequence = Sequence.of(parts);
    if (forcedDelete || isDelete(source)) {
      if (!deleteColumns) {
        return ChangeEvent.delete(businessKey, sequence);
      }
      Object[] carried = new Object[attributeIndex.length];
      for (int j = 0; j < attributeIndex.length; j++) {
        carried[j] = present(source.value(attributeIndex[j]));
      }
      return new ChangeEvent(businessKey, sequence, true, Arrays.asList(carried));
    }
    Object[] attributes = new Object[attributeIndex.length];
    for (int j = 0; j < attributeIndex.length; j++) {
      attributes[j] = source.value(attributeIndex[j]);
    }
    return ChangeEvent.upsert(businessKey, sequence, Arrays.asList(attributes));
  }

  private boolean isDelete(ColumnSource source) throws RejectedRecord {
    if (rule instanceof DeleteRule.ColumnEquals eq) {
      Object v = present(source.value(deleteIndex));
      return v != null && eq.equals().equals(text(v));
    }
    if (rule instanceof DeleteRule.BooleanColumn) {
      return Boolean.TRUE.equals(source.value(deleteIndex));
    }
    return false;
  }

  /** Absent means "keep an attribute"; a key, sequence or delete column has nothing to keep, so it is missing. */
  private static Object present(Object v) {
    return v == Absent.VALUE ? null : v;
  }

  private static String text(Object v) {
    return v instanceof java.math.BigDecimal d ? d.toPlainString() : v.toString();
  }

  /**
   * A null value: a delete of the record key's business key when the rule is {@code tombstone}. The record key is
   * a JSON object holding the key columns (and optionally the sequence columns), or a bare scalar for a one-column
   * key (a JSON scalar, or raw UTF-8 text for a string key).
   */
  Decoded tombstone(byte[] recordKey, long recordTimestampMillis, ObjectReader json) {
    try {
      if (!(rule instanceof DeleteRule.Tombstone)) {
        throw ChangeErrors.tombstoneNotADelete(rule);
      }
      if (recordKey == null || recordKey.length == 0) {
        throw ChangeErrors.tombstoneWithoutKey(spec.key());
      }
      JsonNode node = parseKey(recordKey, json);
      JsonNode object = node.isObject() ? node : null;
      if (object == null && keyIndex.length != 1) {
        throw ChangeErrors.tombstoneKeyNotAnObject(node.toString(), spec.key());
      }
      if (object == null && (node.isArray() || node.isNull())) {
        throw ChangeErrors.tombstoneKeyNotAValue(node.toString(), spec.key().get(0));
      }
      boolean sequenceInKey = object != null;
      if (object != null) {
        for (int i : sequenceIndex) {
          JsonNode v = object.get(columns[i].name());
          sequenceInKey &= v != null && !v.isNull();
        }
      }
      if (!sequenceInKey && !(tombstoneFromTimestamp && recordTimestampMillis >= 0)) {
        throw ChangeErrors.tombstoneWithoutSequence(spec.sequence());
      }
      boolean[] isSequence = new boolean[columns.length];
      for (int i : sequenceIndex) {
        isSequence[i] = true;
      }
      boolean fromTimestamp = !sequenceInKey;
      ChangeEvent event = assemble(index -> {
        Column c = columns[index];
        if (fromTimestamp && isSequence[index]) {
          return Instant.ofEpochMilli(recordTimestampMillis);
        }
        if (object != null) {
          return typed(object.get(c.name()), c);
        }
        return index == keyIndex[0] ? typed(node, c) : null;
      }, true, false); // a tombstone carries the key only
      return new Decoded.Accepted(event);
    } catch (RejectedRecord r) {
      return r.toDecoded();
    }
  }

  private JsonNode parseKey(byte[] recordKey, ObjectReader json) throws RejectedRecord {
    StrictText.checkJson(recordKey, "record key of the tombstone");
    try {
      JsonNode node = json.readTree(recordKey);
      if (node != null && !node.isMissingNode()) {
        return node;
      }
    } catch (IOException e) {
      // a plain string key (StringSerializer) is not JSON; fall through
    }
    if (keyIndex.length == 1) {
      return TextNode.valueOf(new String(recordKey, StandardCharsets.UTF_8));
    }
    throw ChangeErrors.malformedJson("record key of the tombstone", "it cannot be parsed as JSON");
  }

  /** JSON to the column's in-memory form; null for a missing field or JSON null. */
  static Object typed(JsonNode node, Column column) throws RejectedRecord {
    Object v;
    try {
      v = ColumnValues.fromJson(node, column.type());
    } catch (IllegalArgumentException e) {
      throw ChangeErrors.badType(column, e.getMessage());
    }
    if (v instanceof String s) {
      checkText(s, column);
    }
    return v;
  }

  /** The last guard before a string reaches the versions and the table: it must be Unicode text. */
  static void checkText(String s, Column column) throws RejectedRecord {
    int at = StrictText.unpairedSurrogate(s);
    if (at >= 0) {
      throw ChangeErrors.unpairedSurrogateInText(column, s.charAt(at), at);
    }
  }

  private int[] indexes(List<String> names) {
    List<Integer> out = new ArrayList<>();
    for (String n : names) {
      out.add(indexOf(n));
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }
}
