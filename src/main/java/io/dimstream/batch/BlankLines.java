package io.dimstream.batch;

import java.nio.charset.StandardCharsets;

/**
 * Which lines of an input file are blank, decided on their bytes as {@link String#isBlank} decides on the decoded
 * line: readers and counters skip exactly the same lines without decoding every record.
 */
public final class BlankLines {
  private BlankLines() {}

  /** Whether {@code bytes[from, to)} is blank; decoded only when it holds non-ASCII bytes. */
  public static boolean isBlank(byte[] bytes, int from, int to) {
    boolean nonAscii = false;
    for (int i = from; i < to; i++) {
      byte b = bytes[i];
      if (b < 0) {
        nonAscii = true;
      } else if (!isAsciiWhitespace(b)) {
        return false;
      }
    }
    return !nonAscii || new String(bytes, from, to - from, StandardCharsets.UTF_8).isBlank();
  }

  /** The ASCII characters {@link Character#isWhitespace} takes as whitespace. */
  public static boolean isAsciiWhitespace(byte b) {
    return b == ' ' || (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x1F);
  }
}
