package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Reads the columns of one Avro record in plain binary encoding (no container file, no framing, no schema-registry
 * prefix) written with a given record schema: the reader plan of {@link AvroChangeDecoder}, shared with the other
 * readers of Avro rows (an enrichment's facts). Bytes left after the record, a short value or an invalid encoding
 * are rejected as {@code malformed-avro}, text that is not Unicode as {@code bad-encoding}, a value that does not
 * fit its column as {@code bad-type}. Logical types map onto column values: {@code date} to dates,
 * {@code timestamp-millis/-micros/-nanos} to timestamps, {@code decimal} to decimals. Fields that are no column are
 * read past; columns the schema lacks are null.
 *
 * <p>The plan is compiled once from the schema; a record costs one pass over its bytes. Immutable and thread-safe.
 */
public final class AvroRows {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** A field of the schema whose Avro type cannot hold its column's values (a record, an array, plain bytes...). */
  public static final class UnusableField extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String field;
    private final String avroType;

    UnusableField(String field, String avroType) {
      super("field '" + field + "' is an Avro " + avroType + ", which no column type can hold");
      this.field = field;
      this.avroType = avroType;
    }

    public String field() {
      return field;
    }

    public String avroType() {
      return avroType;
    }
  }

  /**
   * One record's column values (in the order of the columns given), or why it was not read.
   *
   * @param values   typed as {@link ColumnValues#fromJson} types them; null when rejected
   * @param rejected null when read
   */
  public record Row(Object[] values, Decoded.Rejected rejected) {}

  /** Reads one value of one schema. */
  @FunctionalInterface
  private interface ValueReader {
    Object read(AvroCursor in) throws AvroCursor.Malformed;
  }

  private record FieldPlan(String name, String typeName, int column, ValueReader reader) {}

  private final Column[] columns;
  private final FieldPlan[] plan;

  /**
   * @param schema  the writer's record schema
   * @param columns the columns to read, by field name
   * @throws UnusableField when a column's field cannot hold its values
   */
  public AvroRows(Schema schema, Column[] columns) {
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("the schema is a " + schema.getType() + ", not a record");
    }
    this.columns = columns.clone();
    Map<String, ValueReader> named = new HashMap<>();
    List<FieldPlan> fields = new ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      int column = -1;
      for (int i = 0; i < columns.length; i++) {
        if (columns[i].name().equals(f.name())) {
          column = i;
        }
      }
      // Avro promotes bytes to string, and both are a length and the bytes: read as text, checked as UTF-8
      Schema readAs = column >= 0 && columns[column].type().kind() == io.dimstream.types.ColumnType.Kind.STRING
          ? bytesAsString(f.schema()) : f.schema();
      if (column >= 0 && !mapsOntoColumn(readAs)) {
        throw new UnusableField(f.name(), f.schema().toString());
      }
      fields.add(new FieldPlan(f.name(), typeName(f.schema()), column, reader(readAs, named)));
    }
    this.plan = fields.toArray(new FieldPlan[0]);
  }

  /** Reads and types every column of one record. */
  public Row read(byte[] value) {
    try {
      Object[] raw = raw(value);
      for (int i = 0; i < raw.length; i++) {
        raw[i] = typed(raw[i], i);
      }
      return new Row(raw, null);
    } catch (RejectedRecord r) {
      return new Row(null, r.toDecoded());
    }
  }

  /** The values of one record as Avro gives them, per column (null where the schema lacks it); see {@link #typed}. */
  Object[] raw(byte[] value) throws RejectedRecord {
    return raw(value, 0);
  }

  /** As {@link #raw(byte[])}, for a record that starts at byte {@code from} of the value. */
  Object[] raw(byte[] value, int from) throws RejectedRecord {
    Object[] raw = new Object[columns.length];
    AvroCursor in = new AvroCursor(value, from);
    for (FieldPlan f : plan) {
      int start = in.position();
      try {
        Object v = f.reader().read(in);
        if (f.column() >= 0) {
          raw[f.column()] = v;
        }
      } catch (AvroCursor.BadText t) {
        throw ChangeErrors.badEncodingAvro(f.name(), t.offset(), value.length, t.getMessage());
      } catch (AvroCursor.Malformed m) {
        throw ChangeErrors.malformedAvro(f.name(), f.typeName(), start, value.length, m.getMessage(), from > 0);
      }
    }
    if (!in.atEnd()) {
      throw ChangeErrors.trailingAvro(in.position(), value.length, from > 0);
    }
    return raw;
  }

  /** Column {@code i}'s value from its raw Avro value. */
  Object typed(Object raw, int i) throws RejectedRecord {
    return coerce(raw, columns[i]);
  }

  /** Avro values are typed by the schema; this only bridges a schema type that differs from the column's. */
  private static Object coerce(Object raw, Column column) throws RejectedRecord {
    if (raw == null) {
      return null;
    }
    switch (column.type().kind()) {
      case LONG:
        if (raw instanceof Long || raw instanceof Integer) {
          return ((Number) raw).longValue();
        }
        break;
      case INT:
        if (raw instanceof Integer) {
          return raw;
        }
        break;
      case DOUBLE:
        if (raw instanceof Double || raw instanceof Long || raw instanceof Integer) {
          return ((Number) raw).doubleValue();
        }
        break;
      case DECIMAL:
        if (raw instanceof BigDecimal d) {
          try {
            return ColumnValues.decimal(d, column.type());
          } catch (IllegalArgumentException e) {
            throw ChangeErrors.badType(column, e.getMessage());
          }
        }
        break;
      case BOOLEAN:
        if (raw instanceof Boolean) {
          return raw;
        }
        break;
      case STRING:
        if (raw instanceof String) {
          return raw;
        }
        break;
      case DATE:
        if (raw instanceof LocalDate) {
          return raw;
        }
        break;
      case TIMESTAMP:
        if (raw instanceof Instant t) {
          try {
            return ColumnValues.timestamp(t);
          } catch (IllegalArgumentException e) {
            throw ChangeErrors.badType(column, e.getMessage());
          }
        }
        break;
      default:
        break;
    }
    return EventAssembler.typed(json(raw), column);
  }

  private static JsonNode json(Object raw) {
    if (raw instanceof Long l) {
      return NODES.numberNode(l);
    }
    if (raw instanceof Integer i) {
      return NODES.numberNode(i);
    }
    if (raw instanceof Double d) {
      return NODES.numberNode(d);
    }
    if (raw instanceof BigDecimal d) {
      return NODES.numberNode(d);
    }
    if (raw instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    return NODES.textNode(raw.toString());
  }

  /** {@code s} with plain {@code bytes} (alone or as a union branch) read as {@code string}. */
  private static Schema bytesAsString(Schema s) {
    if (s.getType() == Schema.Type.BYTES && s.getLogicalType() == null) {
      return Schema.create(Schema.Type.STRING);
    }
    if (s.getType() == Schema.Type.UNION) {
      return Schema.createUnion(s.getTypes().stream().map(AvroRows::bytesAsString).toList());
    }
    return s;
  }

  private static boolean mapsOntoColumn(Schema s) {
    return switch (s.getType()) {
      case UNION -> s.getTypes().stream().allMatch(t -> t.getType() == Schema.Type.NULL || mapsOntoColumn(t));
      case NULL, BOOLEAN, INT, LONG, FLOAT, DOUBLE, STRING, ENUM -> true;
      case BYTES, FIXED -> s.getLogicalType() instanceof LogicalTypes.Decimal;
      default -> false;
    };
  }

  private static String typeName(Schema s) {
    if (s.getType() == Schema.Type.UNION) {
      return String.join("|", s.getTypes().stream().map(AvroRows::typeName).toList());
    }
    LogicalType logical = s.getLogicalType();
    return logical == null ? s.getType().getName() : logical.getName();
  }

  /** Compiles the reader of one schema; named types are cached so recursive schemas terminate. */
  private static ValueReader reader(Schema s, Map<String, ValueReader> named) {
    LogicalType logical = s.getLogicalType();
    String logicalName = logical == null ? "" : logical.getName();
    switch (s.getType()) {
      case NULL:
        return in -> null;
      case BOOLEAN:
        return AvroCursor::readBoolean;
      case INT:
        return "date".equals(logicalName) ? in -> LocalDate.ofEpochDay(in.readInt()) : AvroCursor::readInt;
      case LONG:
        return switch (logicalName) {
          case "timestamp-millis", "local-timestamp-millis" -> in -> Instant.ofEpochMilli(in.readLong());
          case "timestamp-micros", "local-timestamp-micros" -> in -> ColumnValues.fromEpochMicros(in.readLong());
          case "timestamp-nanos", "local-timestamp-nanos" -> in -> nanos(in.readLong());
          default -> AvroCursor::readLong;
        };
      case FLOAT:
        return in -> Double.valueOf(Float.toString(in.readFloat()));
      case DOUBLE:
        return AvroCursor::readDouble;
      case STRING:
        return AvroCursor::readString;
      case ENUM: {
        List<String> symbols = s.getEnumSymbols();
        return in -> {
          int i = in.readInt();
          if (i < 0 || i >= symbols.size()) {
            throw new AvroCursor.Malformed("enum index " + i + " is not one of the " + symbols.size() + " symbols");
          }
          return symbols.get(i);
        };
      }
      case BYTES:
        if (logical instanceof LogicalTypes.Decimal d) {
          int scale = d.getScale();
          return in -> decimal(in.readBytes(), scale);
        }
        return AvroCursor::readBytes;
      case FIXED: {
        int size = s.getFixedSize();
        if (logical instanceof LogicalTypes.Decimal d) {
          int scale = d.getScale();
          return in -> decimal(in.readFixed(size), scale);
        }
        return in -> {
          in.skip(size);
          return null;
        };
      }
      case UNION: {
        ValueReader[] branches = s.getTypes().stream().map(t -> reader(t, named)).toArray(ValueReader[]::new);
        return in -> {
          long i = in.readLong();
          if (i < 0 || i >= branches.length) {
            throw new AvroCursor.Malformed("union branch " + i + " is not one of the " + branches.length + " branches");
          }
          return branches[(int) i].read(in);
        };
      }
      case ARRAY: {
        ValueReader item = reader(s.getElementType(), named);
        return in -> {
          skipBlocks(in, item, null);
          return null;
        };
      }
      case MAP: {
        ValueReader item = reader(s.getValueType(), named);
        return in -> {
          skipBlocks(in, item, AvroCursor::readString);
          return null;
        };
      }
      case RECORD: {
        ValueReader cached = named.get(s.getFullName());
        if (cached != null) {
          return cached;
        }
        List<ValueReader> fields = new ArrayList<>();
        ValueReader record = in -> {
          for (ValueReader f : fields) {
            f.read(in);
          }
          return null;
        };
        named.put(s.getFullName(), record);
        for (Schema.Field f : s.getFields()) {
          fields.add(reader(f.schema(), named));
        }
        return record;
      }
      default:
        throw new IllegalStateException("unexpected Avro type " + s.getType());
    }
  }

  private static void skipBlocks(AvroCursor in, ValueReader item, ValueReader key) throws AvroCursor.Malformed {
    while (true) {
      long count = in.readLong();
      if (count == 0) {
        return;
      }
      if (count < 0) {
        count = -count;
        in.readLong(); // the block's byte size, not needed when reading item by item
      }
      for (long i = 0; i < count; i++) {
        if (key != null) {
          key.read(in);
        }
        int before = in.position();
        item.read(in);
        if (in.position() == before && key == null) {
          break; // a zero-width item type (null, empty record): the rest of the block has no bytes either
        }
      }
    }
  }

  private static Instant nanos(long v) {
    return Instant.ofEpochSecond(Math.floorDiv(v, 1_000_000_000L), Math.floorMod(v, 1_000_000_000L));
  }

  private static BigDecimal decimal(byte[] bytes, int scale) throws AvroCursor.Malformed {
    if (bytes.length == 0) {
      throw new AvroCursor.Malformed("a decimal has no bytes");
    }
    return new BigDecimal(new BigInteger(bytes), scale);
  }
}
