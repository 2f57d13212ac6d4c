package io.dimstream.spec;

import static io.dimstream.spec.SpecNodes.checkKnown;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a change record is read: its {@code format}, missing, unavailable and unknown fields, the {@code delete}
 * rule, and the expressions ({@code derive}, {@code skip_when}) applied to each event.
 */
final class EventRules {
  private EventRules() {}

  static InputFormat inputFormat(JsonNode root, Path file) {
    if (!root.has("format")) {
      return InputFormat.JSON;
    }
    String f = root.get("format").asText().toLowerCase(Locale.ROOT);
    return switch (f) {
      case "json" -> InputFormat.JSON;
      case "avro" -> InputFormat.AVRO;
      case "debezium-json", "debezium" -> InputFormat.DEBEZIUM_JSON;
      case "debezium-avro" -> InputFormat.DEBEZIUM_AVRO;
      default -> throw SpecErrors.invalid(file, "format", "unknown input format '" + f + "'",
          "use json, avro, debezium-json or debezium-avro");
    };
  }

  static FieldRules fieldRules(JsonNode root, Path file) {
    FieldRules d = FieldRules.DEFAULT;
    FieldRules.MissingFields missing = d.missing();
    if (root.has("missing_fields")) {
      String m = root.get("missing_fields").asText().toLowerCase(Locale.ROOT);
      missing = switch (m) {
        case "null" -> FieldRules.MissingFields.NULL;
        case "keep" -> FieldRules.MissingFields.KEEP;
        default -> throw SpecErrors.invalid(file, "missing_fields", "unknown value '" + m + "'",
            "use null (an absent attribute becomes null) or keep (it keeps its previous value)");
      };
    }
    String unavailable = d.unavailableValue();
    if (root.has("unavailable_value")) {
      JsonNode u = root.get("unavailable_value");
      if (!u.isNull() && !u.isTextual()) {
        throw SpecErrors.invalid(file, "unavailable_value", "expected a text value, got " + u,
            "give the placeholder your connector writes for unchanged values (Debezium: unavailable.value.placeholder),"
                + " or null for none");
      }
      unavailable = u.isNull() ? null : u.asText();
    }
    FieldRules.UnknownFields unknown = d.unknown();
    if (root.has("unknown_fields")) {
      String u = root.get("unknown_fields").asText().toLowerCase(Locale.ROOT);
      unknown = switch (u) {
        case "warn" -> FieldRules.UnknownFields.WARN;
        case "reject" -> FieldRules.UnknownFields.REJECT;
        case "ignore" -> FieldRules.UnknownFields.IGNORE;
        default -> throw SpecErrors.invalid(file, "unknown_fields", "unknown value '" + u + "'",
            "use warn (count and log undeclared fields), reject (dead-letter the event) or ignore");
      };
    }
    return new FieldRules(missing, unavailable, unknown);
  }

  static DeleteRule deleteRule(JsonNode node, Path file) {
    if (node == null || node.isNull()) {
      return new DeleteRule.None();
    }
    if (node.isTextual()) {
      return switch (node.asText().toLowerCase(Locale.ROOT)) {
        case "debezium" -> new DeleteRule.DebeziumOp();
        case "tombstone" -> new DeleteRule.Tombstone();
        case "none" -> new DeleteRule.None();
        default -> throw SpecErrors.invalid(file, "delete", "unknown delete rule '" + node.asText() + "'",
            "use {column: op, equals: d}, {column: is_deleted}, debezium or tombstone");
      };
    }
    if (node.isObject() && node.has("when")) {
      checkKnown(node, "delete", Set.of("when"), file);
      return new DeleteRule.When(expressionText(node.get("when"), "delete.when", file));
    }
    if (node.isObject() && node.has("column")) {
      checkKnown(node, "delete", Set.of("column", "equals"), file);
      String column = node.get("column").asText();
      return node.has("equals") ? new DeleteRule.ColumnEquals(column, node.get("equals").asText())
          : new DeleteRule.BooleanColumn(column);
    }
    throw SpecErrors.invalid(file, "delete", "cannot read the delete rule " + node,
        "use {column: op, equals: d}, {column: is_deleted}, debezium or tombstone");
  }

  /** The texts of {@code derive} and {@code skip_when}; {@code io.dimstream.expr} compiles and type-checks them. */
  static Expressions expressions(JsonNode root, Path file) {
    Map<String, String> derive = new LinkedHashMap<>();
    JsonNode d = root.get("derive");
    if (d != null && !d.isNull()) {
      if (!d.isObject()) {
        throw SpecErrors.invalid(file, "derive", "expected a mapping of attribute name to expression",
            "write e.g. derive: {amount_x2: \"event.amount * 2.0\"}");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        derive.put(e.getKey(), expressionText(e.getValue(), "derive." + e.getKey(), file));
      }
    }
    JsonNode skip = root.get("skip_when");
    String skipWhen = skip == null || skip.isNull() ? null : expressionText(skip, "skip_when", file);
    return new Expressions(derive, skipWhen);
  }

  static String expressionText(JsonNode node, String field, Path file) {
    if (node == null || !node.isTextual() || node.asText().isBlank()) {
      throw SpecErrors.invalid(file, field, "expected an expression as a string", "quote the expression, e.g. \"event.status == 'deleted'\"");
    }
    return node.asText();
  }
}
