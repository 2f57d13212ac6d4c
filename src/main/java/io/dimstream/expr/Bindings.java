package io.dimstream.expr;

import com.google.common.collect.ImmutableCollection;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import dev.cel.common.types.CelType;
import dev.cel.common.types.CelTypeProvider;
import dev.cel.common.types.StructType;
import dev.cel.common.values.NullValue;
import io.dimstream.model.Absent;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The variables an expression sees, typed from the spec's columns: {@code event} (key, sequence and attribute
 * columns of the event) and {@code prev} (key and attribute columns of the version open before it, or null).
 */
final class Bindings implements CelTypeProvider {
  static final String EVENT = "event";
  static final String PREV = "prev";

  private final List<Column> keys;
  private final List<Column> sequence;
  private final List<Column> attributes;
  private final StructType eventType;
  private final StructType prevType;
  /** Event column name to its slot: keys, then the declared sequence columns, then attributes. */
  private final Map<String, Integer> slots = new HashMap<>();
  /** Per sequence slot, its position in the sequence. */
  private final int[] sequenceSlots;

  Bindings(DimensionSpec spec) {
    this.keys = spec.keyColumns();
    // A Debezium source field (source.lsn) in the sequence is no declared column and not a CEL field name.
    this.sequence = spec.sequence().stream().map(spec::column).toList();
    this.attributes = spec.attributeColumns();
    Map<String, CelType> eventFields = new LinkedHashMap<>();
    Map<String, CelType> prevFields = new LinkedHashMap<>();
    keys.forEach(c -> eventFields.put(c.name(), CelColumns.celType(c.type())));
    sequence.stream().filter(c -> c != null).forEach(c -> eventFields.put(c.name(), CelColumns.celType(c.type())));
    attributes.forEach(c -> eventFields.put(c.name(), CelColumns.celType(c.type())));
    keys.forEach(c -> prevFields.put(c.name(), CelColumns.celType(c.type())));
    attributes.forEach(c -> prevFields.put(c.name(), CelColumns.celType(c.type())));
    keys.forEach(c -> slots.put(c.name(), slots.size()));
    List<Integer> seqSlots = new java.util.ArrayList<>();
    for (int i = 0; i < sequence.size(); i++) {
      if (sequence.get(i) != null) {
        slots.put(sequence.get(i).name(), slots.size());
        seqSlots.add(i);
      }
    }
    this.sequenceSlots = seqSlots.stream().mapToInt(Integer::intValue).toArray();
    attributes.forEach(c -> slots.put(c.name(), slots.size()));
    this.eventType = struct("dimstream.Event", eventFields);
    this.prevType = struct("dimstream.Version", prevFields);
  }

  StructType eventType() {
    return eventType;
  }

  StructType prevType() {
    return prevType;
  }

  @Override
  public ImmutableCollection<CelType> types() {
    return ImmutableList.of(eventType, prevType);
  }

  @Override
  public Optional<CelType> findType(String typeName) {
    return types().stream().filter(t -> t.name().equals(typeName)).findFirst();
  }

  /**
   * The event as a CEL value: its attributes as decoded, a delete's those its record carried; a column the event
   * leaves out (or a delete does not carry) is null. Columns are converted when an expression first reads them.
   */
  EventFields event(ChangeEvent event) {
    return new EventFields(event);
  }

  /**
   * The {@code event} variable of one event: a map of column name to CEL value that converts a column on its first
   * read and keeps it for the other expressions of the same event, so an expression costs only the columns it
   * reads. Not thread-safe: one per event and evaluation.
   */
  final class EventFields extends AbstractMap<String, Object> {
    private final ChangeEvent event;
    private final Object[] values = new Object[slots.size()];

    private EventFields(ChangeEvent event) {
      this.event = event;
    }

    @Override
    public Object get(Object name) {
      Integer slot = slots.get(name);
      if (slot == null) {
        return null;
      }
      Object v = values[slot];
      if (v == null) {
        v = convert(slot);
        values[slot] = v;
      }
      return v;
    }

    @Override
    public boolean containsKey(Object name) {
      return slots.containsKey(name);
    }

    @Override
    public int size() {
      return slots.size();
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
      // an expression that uses the event as a whole (rare): every column
      Map<String, Object> all = new LinkedHashMap<>();
      slots.keySet().forEach(name -> all.put(name, get(name)));
      return all.entrySet();
    }

    private Object convert(int slot) {
      if (slot < keys.size()) {
        return CelColumns.toCel(keys.get(slot).type(), event.key().values().get(slot));
      }
      int s = slot - keys.size();
      if (s < sequenceSlots.length) {
        Column c = sequence.get(sequenceSlots[s]);
        return CelColumns.sequenceToCel(c.type(), event.sequence().part(sequenceSlots[s]));
      }
      int a = s - sequenceSlots.length;
      List<Object> attrs = event.attributes();
      Object v = a < attrs.size() ? attrs.get(a) : null;
      return CelColumns.toCel(attributes.get(a).type(), v == Absent.VALUE ? null : v);
    }
  }

  /** The open version as a CEL value, or CEL's null when none is open. */
  Object prev(Version open) {
    if (open == null) {
      return NullValue.NULL_VALUE;
    }
    Map<String, Object> out = new HashMap<>();
    putAll(out, keys, open.key().values());
    putAll(out, attributes, open.attributes());
    return out;
  }

  ColumnType attributeType(int position) {
    return attributes.get(position).type();
  }

  int attributePosition(String name) {
    for (int i = 0; i < attributes.size(); i++) {
      if (attributes.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static void putAll(Map<String, Object> out, List<Column> columns, List<Object> values) {
    for (int i = 0; i < columns.size(); i++) {
      out.put(columns.get(i).name(), CelColumns.toCel(columns.get(i).type(), values.get(i)));
    }
  }

  private static StructType struct(String name, Map<String, CelType> fields) {
    return StructType.create(name, ImmutableSet.copyOf(fields.keySet()), f -> Optional.ofNullable(fields.get(f)));
  }
}
