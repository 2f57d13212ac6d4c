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
}
