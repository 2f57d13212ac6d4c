package io.dimstream.change;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;

/** The one shared JSON reader (thread-safe) and the parse of a record value into one JSON object. */
final class JsonRecords {
  /** Exact decimals (no detour through double) and no bytes after the first value. */
  static final ObjectReader READER = new ObjectMapper().reader()
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static final java.util.regex.Pattern START_MARKER =
      java.util.regex.Pattern.compile("\\s*\\(start marker at \\[Source:.*?\\]\\)");

  private JsonRecords() {}

  /** Parses {@code value} as exactly one JSON object of Unicode text (else {@code bad-encoding}); {@code what} names it in the rejection ("value"). */
  static JsonNode object(byte[] value, String what) throws RejectedRecord {
    // Jackson decodes overlong UTF-8 leniently and passes lone surrogate escapes through: check the bytes first
    StrictText.checkJson(value, what);
    JsonNode node;
    try {
      node = READER.readTree(value);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      throw ChangeErrors.malformedJson(what, tidy(e.getOriginalMessage()) + where);
    } catch (IOException e) {
      throw ChangeErrors.malformedJson(what, String.valueOf(e.getMessage()));
    }
    if (node == null || node.isMissingNode()) {
      throw ChangeErrors.malformedJson(what, "it is empty");
    }
    if (!node.isObject()) {
      throw ChangeErrors.malformedJson(what, "it is " + kind(node) + " " + ChangeErrors.shown(node.toString()));
    }
    return node;
  }

  /** Jackson's message without its internals (source locations, binding targets, feature names). */
  private static String tidy(String message) {
    if (message == null) {
      return "unreadable JSON";
    }
    if (message.startsWith("Trailing token")) {
      return "more JSON follows the end of the object";
    }
    return START_MARKER.matcher(message).replaceAll("");
  }

  private static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
