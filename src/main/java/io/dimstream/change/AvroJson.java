package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;

/**
 * A generic Avro value as the JSON that Kafka Connect's JsonConverter would have written for it (numbers as
 * numbers, bytes as base64, decimals as numbers), so that an Avro Debezium envelope is read by the rules of
 * {@link DebeziumJsonDecoder}. Text must be well-formed UTF-8, as everywhere: a string that is not is refused.
 */
final class AvroJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private AvroJson() {}

  /**
   * @param path the field's place in the record, for the rejection's detail
   * @throws RejectedRecord {@code bad-encoding} for a string that is not UTF-8
   */
  static JsonNode toJson(Object value, Schema schema, String path) throws RejectedRecord {
    if (value == null) {
      return NODES.nullNode();
    }
    switch (schema.getType()) {
      case UNION:
        Schema branch = schema.getTypes().get(GenericData.get().resolveUnion(schema, value));
        return toJson(value, branch, path);
      case RECORD: {
        GenericRecord r = (GenericRecord) value;
        ObjectNode out = NODES.objectNode();
        for (Schema.Field f : schema.getFields()) {
          out.set(f.name(), toJson(r.get(f.pos()), f.schema(), path.isEmpty() ? f.name() : path + "." + f.name()));
        }
        return out;
      }
      case ARRAY: {
        ArrayNode out = NODES.arrayNode();
        for (Object item : (Collection<?>) value) {
          out.add(toJson(item, schema.getElementType(), path + "[]"));
        }
        return out;
      }
      case MAP: {
        ObjectNode out = NODES.objectNode();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          out.set(text(e.getKey(), path), toJson(e.getValue(), schema.getValueType(), path + "." + e.getKey()));
        }
        return out;
      }
      case STRING:
      case ENUM:
        return NODES.textNode(text(value, path));
      case BYTES:
        return bytes(((ByteBuffer) value).duplicate(), schema);
      case FIXED:
        return bytes(ByteBuffer.wrap(((GenericFixed) value).bytes()), schema);
      case INT:
        return NODES.numberNode((Integer) value);
      case LONG:
        return NODES.numberNode((Long) value);
      case FLOAT:
        return NODES.numberNode(new BigDecimal(Float.toString((Float) value)));
      case DOUBLE:
        return NODES.numberNode((Double) value);
      case BOOLEAN:
        return NODES.booleanNode((Boolean) value);
      default:
        return NODES.nullNode();
    }
  }

  private static JsonNode bytes(ByteBuffer buf, Schema schema) {
    byte[] b = new byte[buf.remaining()];
    buf.get(b);
    if (schema.getLogicalType() instanceof LogicalTypes.Decimal d && b.length > 0) {
      return NODES.numberNode(new BigDecimal(new BigInteger(b), d.getScale()));
    }
    // Kafka Connect's decimal without an Avro logical type: the scale is a schema parameter
    String scale = schema.getProp("scale");
    if ("org.apache.kafka.connect.data.Decimal".equals(schema.getProp("connect.name")) && scale != null
        && b.length > 0) {
      return NODES.numberNode(new BigDecimal(new BigInteger(b), Integer.parseInt(scale)));
    }
    return NODES.textNode(Base64.getEncoder().encodeToString(b));
  }

  private static String text(Object value, String path) throws RejectedRecord {
    if (value instanceof Utf8 u) {
      StrictText.Problem bad = StrictText.utf8(u.getBytes(), 0, u.getByteLength());
      if (bad != null) {
        throw ChangeErrors.badEncodingAvro(path, bad.offset(), u.getByteLength(), bad.what());
      }
    }
    return value.toString();
  }
}
