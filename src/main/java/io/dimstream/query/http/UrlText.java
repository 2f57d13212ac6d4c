package io.dimstream.query.http;

import io.dimstream.query.QueryErrors;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict percent-decoding of URL parts as UTF-8: a malformed escape ({@code %ZZ}, a lone {@code %}) or bytes that
 * are not UTF-8 (overlong forms, lone surrogates) are bad input, never guessed at.
 */
final class UrlText {
  private UrlText() {}

  /** Decodes a path segment; {@code +} stays a plus. */
  static String pathSegment(String raw) {
    return decode(raw, false, "path segment");
  }

  /** Decodes a query parameter's name or value; {@code +} is a space, as HTML forms send it. */
  static String queryPart(String raw) {
    return decode(raw, true, "query parameter");
  }

  private static String decode(String raw, boolean plusIsSpace, String what) {
    if (raw.indexOf('%') < 0 && !(plusIsSpace && raw.indexOf('+') >= 0)) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
        // Character.digit accepts non-ASCII digits too; an escape is two ASCII hex digits
        if (hi < 0 || lo < 0 || raw.charAt(i + 1) > 127 || raw.charAt(i + 2) > 127) {
          throw QueryErrors.badPercentEncoding(what, raw, "'%' at position " + i + " is not followed by two hex "
              + "digits");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        bytes.write(' ');
      } else {
        int cp = raw.codePointAt(i);
        byte[] b = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
        bytes.write(b, 0, b.length);
        i += Character.charCount(cp) - 1;
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw QueryErrors.badPercentEncoding(what, raw, "its escapes do not decode to UTF-8 text");
    }
  }
}
