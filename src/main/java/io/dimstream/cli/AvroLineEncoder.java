package io.dimstream.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Converts one change record given as a JSON object (a {@code .jsonl} line, or a CSV row rendered as JSON) into the
 * Avro binary value (no framing) the spec's writer schema ({@link DimensionSpec#avroSchema()}) describes, for
 * {@code dimstream produce} with {@code format: avro}. Values are parsed by {@link ColumnValues#fromJson} with the
 * column's type (timestamps: ISO-8601 or epoch millis), then written as the field's Avro type: a timestamp as
 * {@code timestamp-millis}, {@code -micros} or {@code -nanos} after the field's logical type, a date as epoch days,
 * a decimal at the schema's scale. A missing field is null when the field is nullable, else its default. JSON fields
 * the schema does not have are ignored, as the decoders ignore undeclared fields. Immutable and thread-safe.
 */
final class AvroLineEncoder {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One field: its name, its (non-null) Avro schema, its column type, and its union shape. */
  private record FieldPlan(Schema.Field field, Schema value, ColumnType type, int nullBranch, int valueBranch) {
    boolean nullable() {
      return nullBranch >= 0;
    }
  }

  private final List<FieldPlan> fields = new ArrayList<>();

  /** @throws IllegalArgumentException when the spec has no Avro record schema */
  AvroLineEncoder(DimensionSpec spec) {
    this(schemaOf(spec), spec::column);
  }

  /**
   * Encodes records of {@code schema} whose fields are read as the columns {@code columns} names (null: not a
   * column, written as null).
   */
  AvroLineEncoder(Schema schema, Function<String, Column> columns) {
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("the Avro schema " + schema.getFullName() + " is not a record");
    }
    for (Schema.Field f : schema.getFields()) {
      Schema s = f.schema();
      int nullBranch = -1;
      int valueBranch = -1;
      if (s.getType() == Schema.Type.UNION) {
        List<Schema> branches = s.getTypes();
        for (int i = 0; i < branches.size(); i++) {
          if (branches.get(i).getType() == Schema.Type.NULL) {
            nullBranch = i;
          } else {
            valueBranch = i;
          }
        }
        s = branches.get(valueBranch);
      }
      Column column = columns.apply(f.name());
      fields.add(new FieldPlan(f, s, column == null ? null : column.type(), nullBranch, valueBranch));
    }
  }

  private static Schema schemaOf(DimensionSpec spec) {
    if (spec.avroSchema() == null) {
      throw new IllegalArgumentException("the spec '" + spec.name() + "' has no Avro schema: records converted"
          + " from files are written with the spec's 'schema:' (an .avsc), which a spec reading a schema registry"
          + " may leave out; add it to convert files");
    }
    Schema schema = new Schema.Parser().parse(spec.avroSchema());
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("the Avro schema of '" + spec.name() + "' is not a record");
    }
    return schema;
  }

  /**
   * The Avro value of one JSON record.
   *
   * @throws IllegalArgumentException saying which field is wrong and why, when the record is not a JSON object or a
   *                                  value does not fit its field
   */
  byte[] encode(byte[] jsonValue) {
    JsonNode record;
    try {
      record = JSON.readTree(jsonValue);
    } catch (IOException e) {
      throw new IllegalArgumentException("not valid JSON: " + jsonProblem(e));
    }
    if (record == null || !record.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
    try {
      for (FieldPlan f : fields) {
        write(out, f, record.get(f.field().name()));
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return bytes.toByteArray();
  }

  private static String jsonProblem(IOException e) {
    if (e instanceof JsonProcessingException j) {
      String what = j.getOriginalMessage().replaceAll("\\s*\\(start marker at .*\\)\\s*$", "");
      return j.getLocation() == null ? what : what + " at column " + j.getLocation().getColumnNr();
    }
    return e.getMessage();
  }

  private static void write(BinaryEncoder out, FieldPlan f, JsonNode node) throws IOException {
    String name = f.field().name();
    if (node == null && f.field().hasDefaultValue() && !f.nullable()) {
      node = JSON.valueToTree(f.field().defaultVal());
    }
    Object value;
    try {
      value = f.type() == null ? null : ColumnValues.fromJson(node, f.type());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("field '" + name + "' (" + describe(f.value()) + "): " + e.getMessage());
    }
    if (value == null) {
      if (!f.nullable()) {
        throw new IllegalArgumentException("field '" + name + "' (" + describe(f.value()) + ") is missing or null, "
            + "but the schema does not allow null");
      }
      out.writeIndex(f.nullBranch());
      out.writeNull();
      return;
    }
    if (f.nullable()) {
      out.writeIndex(f.valueBranch());
    }
    try {
      writeValue(out, f.value(), value);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new IllegalArgumentException("field '" + name + "' (" + describe(f.value()) + "): " + e.getMessage());
    }
  }

  private static void writeValue(BinaryEncoder out, Schema s, Object v) throws IOException {
    LogicalType logical = s.getLogicalType();
    String logicalName = logical == null ? "" : logical.getName();
    switch (s.getType()) {
      case LONG -> {
        if (v instanceof Instant i) {
          out.writeLong(switch (logicalName) {
            case "timestamp-millis", "local-timestamp-millis" -> exact(i, ChronoUnit.MILLIS);
            case "timestamp-nanos", "local-timestamp-nanos" -> exact(i, ChronoUnit.NANOS);
            default -> exact(i, ChronoUnit.MICROS);
          });
        } else {
          out.writeLong(((Number) v).longValue());
        }
      }
      case INT -> out.writeInt(v instanceof LocalDate d ? Math.toIntExact(d.toEpochDay()) : (Integer) v);
      case DOUBLE -> out.writeDouble((Double) v);
      case FLOAT -> {
        float f = ((Double) v).floatValue();
        if (Float.isInfinite(f) && !((Double) v).isInfinite()) {
          throw new IllegalArgumentException(v + " does not fit a float");
        }
        out.writeFloat(f);
      }
      case BOOLEAN -> out.writeBoolean((Boolean) v);
      case STRING -> out.writeString((String) v);
      case ENUM -> {
        int i = s.getEnumSymbols().indexOf((String) v);
        if (i < 0) {
          throw new IllegalArgumentException("\"" + v + "\" is not one of the symbols " + s.getEnumSymbols());
        }
        out.writeEnum(i);
      }
      case BYTES, FIXED -> {
        LogicalTypes.Decimal d = (LogicalTypes.Decimal) logical;
        byte[] unscaled = ((BigDecimal) v).setScale(d.getScale(), RoundingMode.UNNECESSARY).unscaledValue()
            .toByteArray();
        if (s.getType() == Schema.Type.BYTES) {
          out.writeBytes(unscaled);
        } else {
          out.writeFixed(signExtend(unscaled, s.getFixedSize()));
        }
      }
      default -> throw new IllegalArgumentException("Avro type " + s.getType() + " is not supported");
    }
  }

  /** The instant in {@code unit}s since the epoch; throws when it has finer digits, which the field would lose. */
  private static long exact(Instant i, ChronoUnit unit) {
    long n = unit.between(Instant.EPOCH, i);
    if (!Instant.EPOCH.plus(n, unit).equals(i)) {
      throw new IllegalArgumentException(i + " has digits finer than " + unit.toString().toLowerCase(java.util.Locale.ROOT)
          + ", which the field cannot hold");
    }
    return n;
  }

  private static byte[] signExtend(byte[] unscaled, int size) {
    if (unscaled.length > size) {
      throw new IllegalArgumentException("the decimal needs " + unscaled.length + " bytes, the fixed field has " + size);
    }
    byte[] out = new byte[size];
    byte pad = (byte) (unscaled[0] < 0 ? 0xff : 0);
    java.util.Arrays.fill(out, 0, size - unscaled.length, pad);
    System.arraycopy(unscaled, 0, out, size - unscaled.length, unscaled.length);
    return out;
  }

  private static String describe(Schema s) {
    return s.getLogicalType() == null ? s.getType().getName() : s.getLogicalType().getName();
  }
}
