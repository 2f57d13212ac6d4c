package io.dimstream.change;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checks that text is Unicode before a decoder accepts it: strict UTF-8 (no overlong forms, no encoded surrogates,
 * nothing above U+10FFFF) and, for JSON, no {@code \}{@code u} escape that leaves a surrogate unpaired.
 */
final class StrictText {
  private static final JsonFactory JSON = new JsonFactory();
  /** A strict decoder per thread: decoders are stateful, and making one per record costs more than the check. */
  private static final ThreadLocal<CharsetDecoder> DECODER = ThreadLocal.withInitial(() ->
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT));
  private static final ThreadLocal<CharBuffer> OUT = ThreadLocal.withInitial(() -> CharBuffer.allocate(1024));

  private StrictText() {}

  /** A problem found in {@code bytes}: where (byte offset) and what. */
  record Problem(int offset, String what) {}

  /**
   * Checks a JSON document's bytes; {@code what} names it in the rejection ("value"). ASCII without surrogate
   * escapes, the common case, costs one pass over the bytes and no allocation.
   */
  static void checkJson(byte[] bytes, String what) throws RejectedRecord {
    boolean ascii = true;
    boolean surrogateEscape = false;
    for (int i = 0; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b < 0) {
        ascii = false;
      } else if (b == '\\' && i + 3 < bytes.length && bytes[i + 1] == 'u' && (bytes[i + 2] | 0x20) == 'd'
          && isHighHexDigit(bytes[i + 3])) {
        surrogateEscape = true;
      }
    }
    if (!ascii) {
      Problem p = utf8(bytes, 0, bytes.length);
      if (p != null) {
        throw ChangeErrors.badEncoding(what, fieldAt(bytes, p.offset()), p.offset(), bytes.length, p.what());
      }
    }
    if (surrogateEscape) {
      unpairedEscape(bytes, what);
    }
  }

  /** The first malformed UTF-8 sequence in {@code bytes[from, from + length)}, or null when it is all valid. */
  static Problem utf8(byte[] bytes, int from, int length) {
    int end = from + length;
    int i = from;
    while (i < end && bytes[i] >= 0) {
      i++;
    }
    if (i == end) {
      return null;
    }
    CharsetDecoder decoder = DECODER.get().reset();
    CharBuffer out = OUT.get();
    ByteBuffer in = ByteBuffer.wrap(bytes, i, end - i);
    CoderResult r;
    do {
      // the decoded text is not needed, only the verdict: a small buffer is reused
      out.clear();
      r = decoder.decode(in, out, true);
    } while (r.isOverflow());
    if (!r.isError()) {
      out.clear();
      r = decoder.flush(out);
    }
    if (!r.isError()) {
      return null;
    }
    int at = in.position();
    // the bad lead byte and the continuation bytes that follow it, so "C0 AF" shows as a whole
    int shown = Math.max(r.length(), 1);
    while (shown < 4 && at + shown < end && (bytes[at + shown] & 0xC0) == 0x80) {
      shown++;
    }
    StringBuilder hex = new StringBuilder();
    for (int k = 0; k < shown; k++) {
      hex.append(k == 0 ? "" : " ").append(String.format("%02X", bytes[at + k] & 0xff));
    }
    return new Problem(at, "the bytes " + hex + " are not well-formed UTF-8 (a truncated, overlong or invalid"
        + " sequence, or an encoded surrogate)");
  }

  /** The index of the first unpaired UTF-16 surrogate in {@code s}, or -1. */
  static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isHighHexDigit(byte b) {
    int c = b | 0x20;
    return (c >= '8' && c <= '9') || (c >= 'a' && c <= 'f');
  }

  /** Streams the document and rejects the first string (name or value) holding an unpaired surrogate. */
  private static void unpairedEscape(byte[] bytes, String what) throws RejectedRecord {
    try (JsonParser p = JSON.createParser(bytes)) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t == JsonToken.VALUE_STRING || t == JsonToken.FIELD_NAME) {
          String s = t == JsonToken.FIELD_NAME ? p.currentName() : p.getText();
          int at = unpairedSurrogate(s);
          if (at >= 0) {
            throw ChangeErrors.unpairedSurrogate(what, pointer(p), (int) p.getTokenLocation().getByteOffset(),
                bytes.length, s.charAt(at), at);
          }
        }
      }
    } catch (IOException e) {
      // not JSON: the parse that follows reports it as malformed-json
    }
  }

  /** The JSON pointer of the field whose text holds byte {@code offset}, or "" when it cannot be told. */
  private static String fieldAt(byte[] bytes, int offset) {
    try (JsonParser p = JSON.createParser(bytes, 0, offset)) {
      try {
        while (p.nextToken() != null) {
          // reading up to the bad byte leaves the parser inside the field that holds it
        }
      } catch (IOException e) {
        // the prefix ends inside a string: that is the field we want
      }
      return pointer(p);
    } catch (IOException e) {
      return "";
    }
  }

  private static String pointer(JsonParser p) {
    return p.getParsingContext().pathAsPointer().toString();
  }
}
