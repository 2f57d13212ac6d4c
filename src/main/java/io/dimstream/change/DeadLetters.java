package io.dimstream.change;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the headers a rejected record carries on the dead-letter topic. Kafka-free: the topology turns the
 * map into Kafka headers (UTF-8 values); the record's key and value stay unchanged.
 */
public final class DeadLetters {
  /** Header holding the {@link RejectReason} code. */
  public static final String ERROR_HEADER = "dimstream.error";
  /** Header holding the human sentence that says what is wrong and where. */
  public static final String DETAIL_HEADER = "dimstream.error.detail";

  private DeadLetters() {}

  /** {@code dimstream.error -> reason}, {@code dimstream.error.detail -> detail}, in that order. */
  public static Map<String, String> headers(String reason, String detail) {
    Map<String, String> out = new LinkedHashMap<>(4);
    out.put(ERROR_HEADER, reason);
    out.put(DETAIL_HEADER, detail);
    return out;
  }

  /** The headers for a decoder's rejection. */
  public static Map<String, String> headers(Decoded.Rejected rejected) {
    return headers(rejected.reason(), rejected.detail());
  }

  /**
   * One line of a dead-letter file ({@code backfill --dlq}, {@code replay --rejected}): {@code {reason, detail,
   * record}} with the record as text, or {@code {reason, detail, record: null, record_base64}} when its bytes are
   * not UTF-8 (a {@code bad-encoding} record), so the file keeps the bytes the topic would have kept.
   */
  public static com.fasterxml.jackson.databind.node.ObjectNode fileLine(String reason, String detail, byte[] record) {
    var o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    o.put("reason", reason);
    o.put("detail", detail);
    String text = record == null ? null : strictUtf8(record);
    o.put("record", text);
    if (record != null && text == null) {
      o.put("record_base64", java.util.Base64.getEncoder().encodeToString(record));
    }
    return o;
  }

  private static String strictUtf8(byte[] bytes) {
    try {
      return java.nio.charset.StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
          .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      return null;
    }
  }
}
