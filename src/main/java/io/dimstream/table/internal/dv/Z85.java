package io.dimstream.table.internal.dv;

import java.util.Arrays;

/**
 * ZeroMQ's Base85 variant (RFC 32/Z85), which the Delta protocol uses for inline deletion vectors and for the UUID
 * of a DV file, because its alphabet needs no escaping in JSON. Four bytes become five characters.
 */
public final class Z85 {
  private static final char[] ALPHABET =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".toCharArray();
  private static final int[] DECODE = new int[128];

  static {
    Arrays.fill(DECODE, -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      DECODE[ALPHABET[i]] = i;
    }
  }

  private Z85() {}

  /** Encodes {@code bytes}, whose length must be a multiple of 4. */
  public static String encode(byte[] bytes) {
    if (bytes.length % 4 != 0) {
      throw new IllegalArgumentException("Z85 encodes whole 4-byte groups; got " + bytes.length + " bytes");
    }
    StringBuilder out = new StringBuilder(bytes.length / 4 * 5);
    char[] group = new char[5];
    for (int i = 0; i < bytes.length; i += 4) {
      long value = ((bytes[i] & 0xFFL) << 24) | ((bytes[i + 1] & 0xFFL) << 16) | ((bytes[i + 2] & 0xFFL) << 8)
          | (bytes[i + 3] & 0xFFL);
      for (int j = 4; j >= 0; j--) {
        group[j] = ALPHABET[(int) (value % 85)];
        value /= 85;
      }
      out.append(group);
    }
    return out.toString();
  }

  /** Decodes {@code text}, whose length must be a multiple of 5; a character outside the alphabet is an error. */
  public static byte[] decode(String text) {
    if (text.length() % 5 != 0) {
      throw new IllegalArgumentException("Z85 decodes whole 5-character groups; got " + text.length() + " characters");
    }
    byte[] out = new byte[text.length() / 5 * 4];
    for (int i = 0, o = 0; i < text.length(); i += 5, o += 4) {
      long value = 0;
      for (int j = 0; j < 5; j++) {
        char c = text.charAt(i + j);
        int digit = c < 128 ? DECODE[c] : -1;
        if (digit < 0) {
          throw new IllegalArgumentException("'" + c + "' at position " + (i + j) + " is not a Z85 character");
        }
        value = value * 85 + digit;
      }
      if (value > 0xFFFFFFFFL) {
        throw new IllegalArgumentException("the group at position " + i + " encodes more than 32 bits");
      }
      out[o] = (byte) (value >>> 24);
      out[o + 1] = (byte) (value >>> 16);
      out[o + 2] = (byte) (value >>> 8);
      out[o + 3] = (byte) value;
    }
    return out;
  }
}
