package io.dimstream.table.internal.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.files.Int96;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * A checkpoint's {@code add.stats_parsed} struct (written with {@code delta.checkpoint.writeStatsAsStruct}) as the
 * JSON {@code stats} string the log would carry: timestamps as UTC ISO text truncated to milliseconds, dates as ISO
 * dates, the rest as JSON numbers, strings and booleans.
 */
final class ParsedStats {
  private static final DateTimeFormatter MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private ParsedStats() {}

  static String toJson(GenericRecord parsed) {
    ObjectNode root = struct(parsed);
    try {
      return ActionCodec.JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode struct(GenericRecord r) {
    ObjectNode n = ActionCodec.JSON.createObjectNode();
    for (Schema.Field f : r.getSchema().getFields()) {
      Object v = r.get(f.pos());
      if (v != null) {
        put(n, f.name(), v, nonNull(f.schema()));
      }
    }
    return n;
  }

  private static void put(ObjectNode n, String name, Object v, Schema s) {
    LogicalType lt = s.getLogicalType();
    if (v instanceof GenericRecord r) {
      n.set(name, struct(r));
    } else if (lt instanceof LogicalTypes.TimestampMicros || lt instanceof LogicalTypes.LocalTimestampMicros) {
      n.put(name, MILLIS.format(Instant.EPOCH.plus(((Number) v).longValue(), ChronoUnit.MICROS)));
    } else if (lt instanceof LogicalTypes.TimestampMillis || lt instanceof LogicalTypes.LocalTimestampMillis) {
      n.put(name, MILLIS.format(Instant.ofEpochMilli(((Number) v).longValue())));
    } else if (lt instanceof LogicalTypes.Date) {
      n.put(name, LocalDate.ofEpochDay(((Number) v).longValue()).toString());
    } else if (lt instanceof LogicalTypes.Decimal d) {
      n.put(name, new BigDecimal(new BigInteger(bytes(v)), d.getScale()));
    } else if (v instanceof GenericFixed f && f.bytes().length == Int96.BYTES) {
      n.put(name, MILLIS.format(Int96.toInstant(f.bytes())));
    } else if (v instanceof Long x) {
      n.put(name, x);
    } else if (v instanceof Integer x) {
      n.put(name, x);
    } else if (v instanceof Double x) {
      n.put(name, x);
    } else if (v instanceof Float x) {
      n.put(name, x);
    } else if (v instanceof Boolean x) {
      n.put(name, x);
    } else if (v instanceof CharSequence x) {
      n.put(name, x.toString());
    }
    // other types (binary, maps, arrays) carry no bound a reader uses: left out, which means "unknown"
  }

  private static byte[] bytes(Object v) {
    if (v instanceof GenericFixed f) {
      return f.bytes();
    }
    ByteBuffer b = ((ByteBuffer) v).duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private static Schema nonNull(Schema s) {
    if (s.getType() == Schema.Type.UNION) {
      for (Schema b : s.getTypes()) {
        if (b.getType() != Schema.Type.NULL) {
          return b;
        }
      }
    }
    return s;
  }
}
