package io.dimstream.table.internal.actions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Delta actions to and from their one-line JSON form. */
public final class ActionCodec {
  public static final ObjectMapper JSON = new ObjectMapper();
  private static final String TIMESTAMP = "timestamp";
  private static final String OPERATION = "operation";
  private static final String PARAMETERS = "operationParameters";
  private static final String METRICS = "operationMetrics";
  private static final String READ_VERSION = "readVersion";
  private static final String ISOLATION_LEVEL = "isolationLevel";
  private static final String BLIND_APPEND = "isBlindAppend";
  private static final String ENGINE_INFO = "engineInfo";
  private static final String TXN_ID = "txnId";
  private static final String ACTION_COUNT = "dimstreamActionCount";
  private static final String DELETION_VECTOR = "deletionVector";
  private static final String STORAGE_TYPE = "storageType";
  private static final String PATH_OR_INLINE_DV = "pathOrInlineDv";
  private static final String OFFSET = "offset";
  private static final String SIZE_IN_BYTES = "sizeInBytes";
  private static final String CARDINALITY = "cardinality";

  private ActionCodec() {}

  public static String toJson(Action action) {
    ObjectNode root = JSON.createObjectNode();
    if (action instanceof AddFile a) {
      ObjectNode n = root.putObject("add");
      n.put("path", a.path());
      n.set("partitionValues", stringMap(a.partitionValues()));
      n.put("size", a.size());
      n.put("modificationTime", a.modificationTime());
      n.put("dataChange", a.dataChange());
      if (a.stats() != null) {
        n.put("stats", a.stats());
      }
      if (a.deletionVector() != null) {
        n.set(DELETION_VECTOR, deletionVector(a.deletionVector()));
      }
      if (!a.tags().isEmpty()) {
        n.set("tags", stringMap(a.tags()));
      }
    } else if (action instanceof AddCDCFile c) {
      ObjectNode n = root.putObject("cdc");
      n.put("path", c.path());
      n.set("partitionValues", stringMap(c.partitionValues()));
      n.put("size", c.size());
      n.put("dataChange", false);
    } else if (action instanceof RemoveFile r) {
      ObjectNode n = root.putObject("remove");
      n.put("path", r.path());
      n.put("deletionTimestamp", r.deletionTimestamp());
      n.put("dataChange", r.dataChange());
      n.put("extendedFileMetadata", true);
      n.set("partitionValues", stringMap(r.partitionValues()));
      n.put("size", r.size());
      if (r.deletionVector() != null) {
        n.set(DELETION_VECTOR, deletionVector(r.deletionVector()));
      }
    } else if (action instanceof SetTransaction t) {
      ObjectNode n = root.putObject("txn");
      n.put("appId", t.appId());
      n.put("version", t.version());
      n.put("lastUpdated", t.lastUpdated());
    } else if (action instanceof CommitInfo c) {
      root.set("commitInfo", commitInfo(c));
    } else if (action instanceof Metadata m) {
      ObjectNode n = root.putObject("metaData");
      n.put("id", m.id());
      if (m.name() != null) {
        n.put("name", m.name());
      }
      ObjectNode format = n.putObject("format");
      format.put("provider", "parquet");
      format.putObject("options");
      n.put("schemaString", m.schemaString());
      ArrayNode parts = n.putArray("partitionColumns");
      m.partitionColumns().forEach(parts::add);
      n.set("configuration", stringMap(m.configuration()));
      n.put("createdTime", m.createdTime());
    } else if (action instanceof Protocol p) {
      ObjectNode n = root.putObject("protocol");
      n.put("minReaderVersion", p.minReaderVersion());
      n.put("minWriterVersion", p.minWriterVersion());
      if (p.readerFeatures() != null) {
        ArrayNode features = n.putArray("readerFeatures");
        p.readerFeatures().forEach(features::add);
      }
      if (p.writerFeatures() != null) {
        ArrayNode features = n.putArray("writerFeatures");
        p.writerFeatures().forEach(features::add);
      }
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Parses one line; returns null for actions dimstream does not use (domainMetadata, ...). Throws
   * {@link IllegalArgumentException} when the line is not a JSON object or a known action lacks a field.
   */
  public static Action fromJson(String line) {
    JsonNode root;
    try {
      root = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject() || root.size() != 1) {
      throw new IllegalArgumentException("expected a JSON object with one action, got " + abbreviate(line));
    }
    Map.Entry<String, JsonNode> e = root.fields().next();
    JsonNode n = e.getValue();
    return switch (e.getKey()) {
      case "add" -> new AddFile(text(n, "path"), map(n.get("partitionValues")), number(n, "size"),
          number(n, "modificationTime"), bool(n, "dataChange"), n.hasNonNull("stats") ? n.get("stats").asText() : null,
          deletionVector(n.get(DELETION_VECTOR)), n.hasNonNull("tags") ? map(n.get("tags")) : Map.of());
      case "remove" -> new RemoveFile(text(n, "path"), n.path("deletionTimestamp").asLong(0),
          bool(n, "dataChange"), map(n.get("partitionValues")), n.path("size").asLong(0),
          deletionVector(n.get(DELETION_VECTOR)));
      case "cdc" -> new AddCDCFile(text(n, "path"), map(n.get("partitionValues")), number(n, "size"));
      case "txn" -> new SetTransaction(text(n, "appId"), number(n, "version"), n.path("lastUpdated").asLong(0));
      case "commitInfo" -> {
        if (!n.isObject()) {
          throw new IllegalArgumentException("commitInfo is not an object");
        }
        yield commitInfo(n);
      }
      case "metaData" -> {
        List<String> parts = new ArrayList<>();
        n.path("partitionColumns").forEach(p -> parts.add(p.asText()));
        yield new Metadata(text(n, "id"), n.hasNonNull("name") ? n.get("name").asText() : null,
            text(n, "schemaString"), parts, map(n.get("configuration")), n.path("createdTime").asLong(0));
      }
      case "protocol" -> new Protocol((int) number(n, "minReaderVersion"), (int) number(n, "minWriterVersion"),
          strings(n, "readerFeatures"), strings(n, "writerFeatures"));
      default -> null;
    };
  }

  /** The descriptor's JSON object, fields as the protocol's "Deletion Vector Descriptor Schema" names them. */
  public static ObjectNode deletionVector(DeletionVectorDescriptor dv) {
    ObjectNode n = JSON.createObjectNode();
    n.put(STORAGE_TYPE, dv.storageType());
    n.put(PATH_OR_INLINE_DV, dv.pathOrInlineDv());
    if (dv.offset() != null) {
      n.put(OFFSET, dv.offset());
    }
    n.put(SIZE_IN_BYTES, dv.sizeInBytes());
    n.put(CARDINALITY, dv.cardinality());
    return n;
  }

  /** The descriptor of a {@code deletionVector} field; null when the field is absent or null. */
  private static DeletionVectorDescriptor deletionVector(JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw new IllegalArgumentException("field 'deletionVector' is not an object");
    }
    JsonNode offset = n.get(OFFSET);
    if (offset != null && !offset.isNull() && !offset.canConvertToInt()) {
      throw new IllegalArgumentException("field 'deletionVector.offset' is not a 32-bit whole number");
    }
    long size = number(n, SIZE_IN_BYTES);
    if (size < 0 || size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("field 'deletionVector.sizeInBytes' is out of range: " + size);
    }
    return new DeletionVectorDescriptor(text(n, STORAGE_TYPE), text(n, PATH_OR_INLINE_DV),
        offset == null || offset.isNull() ? null : offset.asInt(), (int) size, number(n, CARDINALITY));
  }

  private static List<String> strings(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isArray()) {
      throw new IllegalArgumentException("field '" + field + "' is not an array");
    }
    List<String> out = new ArrayList<>();
    v.forEach(x -> out.add(x.asText()));
    return out;
  }

  private static ObjectNode commitInfo(CommitInfo c) {
    ObjectNode n = JSON.createObjectNode();
    n.put(TIMESTAMP, c.timestamp());
    n.put(OPERATION, c.operation());
    ObjectNode params = n.putObject(PARAMETERS);
    c.operationParameters().forEach((k, v) -> params.set(k, JSON.valueToTree(v)));
    n.set(METRICS, stringMap(c.operationMetrics()));
    if (c.readVersion() != null) {
      n.put(READ_VERSION, c.readVersion());
    }
    if (c.isolationLevel() != null) {
      n.put(ISOLATION_LEVEL, c.isolationLevel());
    }
    if (c.isBlindAppend() != null) {
      n.put(BLIND_APPEND, c.isBlindAppend());
    }
    n.put(ENGINE_INFO, c.engineInfo());
    n.put(TXN_ID, c.txnId());
    if (c.actionCount() >= 0) {
      n.put(ACTION_COUNT, c.actionCount());
    }
    return n;
  }

  /** Lenient: other engines write commitInfo as they like, and it is provenance only. */
  private static CommitInfo commitInfo(JsonNode n) {
    Map<String, Object> params = new LinkedHashMap<>();
    JsonNode p = n.get(PARAMETERS);
    if (p != null && p.isObject()) {
      p.fields().forEachRemaining(e -> params.put(e.getKey(), scalar(e.getValue())));
    }
    Map<String, String> metrics = new LinkedHashMap<>();
    JsonNode m = n.get(METRICS);
    if (m != null && m.isObject()) {
      m.fields().forEachRemaining(e -> metrics.put(e.getKey(), String.valueOf(scalar(e.getValue()))));
    }
    JsonNode count = n.get(ACTION_COUNT);
    return new CommitInfo(n.path(TIMESTAMP).asLong(0), n.path(OPERATION).asText(""), params, metrics,
        n.hasNonNull(READ_VERSION) && n.get(READ_VERSION).canConvertToLong() ? n.get(READ_VERSION).asLong() : null,
        n.hasNonNull(ISOLATION_LEVEL) ? n.get(ISOLATION_LEVEL).asText() : null,
        n.hasNonNull(BLIND_APPEND) ? n.get(BLIND_APPEND).asBoolean() : null,
        n.hasNonNull(ENGINE_INFO) ? n.get(ENGINE_INFO).asText() : null,
        n.hasNonNull(TXN_ID) ? n.get(TXN_ID).asText() : null,
        count != null && count.canConvertToLong() ? count.asLong() : -1);
  }

  private static Object scalar(JsonNode v) {
    if (v.isTextual()) {
      return v.asText();
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      return v.asLong();
    }
    return v.toString();
  }

  public static ObjectNode stringMap(Map<String, String> m) {
    ObjectNode n = JSON.createObjectNode();
    m.forEach(n::put);
    return n;
  }

  private static Map<String, String> map(JsonNode n) {
    Map<String, String> out = new LinkedHashMap<>();
    if (n != null && n.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isNull()) {
          out.put(e.getKey(), e.getValue().asText());
        }
      }
    }
    return out;
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !v.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' is missing or not a string");
    }
    return v.asText();
  }

  private static long number(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !v.isIntegralNumber()) {
      throw new IllegalArgumentException("field '" + field + "' is missing or not a whole number");
    }
    return v.asLong();
  }

  private static boolean bool(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !v.isBoolean()) {
      throw new IllegalArgumentException("field '" + field + "' is missing or not a boolean");
    }
    return v.asBoolean();
  }

  private static String abbreviate(String s) {
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }
}
