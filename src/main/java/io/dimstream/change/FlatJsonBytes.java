package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.dimstream.types.Column;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the common record straight from its bytes: one flat JSON object of strings without escapes, whole numbers
 * of up to 18 digits, booleans and nulls; field names matched to spec columns on their bytes. Declines (null)
 * anything else, which {@link FlatJsonObject}'s token reader or the tree parse then takes. Thread-safe.
 */
final class FlatJsonBytes {
  /** Whole numbers of at most this many digits cannot overflow a long. */
  private static final int MAX_DIGITS = 18;

  private final byte[][] names;
  /** Open-addressed table of column index + 1 by the hash of the name's bytes; 0 is an empty slot. */
  private final int[] slots;
  private final int mask;

  FlatJsonBytes(Column[] columns) {
    this.names = new byte[columns.length][];
    int size = Integer.highestOneBit(Math.max(4, columns.length * 4));
    this.slots = new int[size];
    this.mask = size - 1;
    for (int i = 0; i < columns.length; i++) {
      names[i] = columns[i].name().getBytes(StandardCharsets.UTF_8);
      int s = hash(names[i], 0, names[i].length) & mask;
      while (slots[s] != 0) {
        s = (s + 1) & mask;
      }
      slots[s] = i + 1;
    }
  }

  /** The object's fields, or null when {@code v} is not an object this reader takes. */
  FlatJsonObject.Fields read(byte[] v) {
    int n = v.length;
    int i = skip(v, 0);
    if (i >= n || v[i] != '{') {
      return null;
    }
    JsonNode[] byColumn = new JsonNode[names.length];
    List<String> undeclared = null;
    i = skip(v, i + 1);
    if (i < n && v[i] == '}') {
      return skip(v, i + 1) == n ? new FlatJsonObject.Fields(byColumn, List.of()) : null;
    }
    while (true) {
      if (i >= n || v[i] != '"') {
        return null;
      }
      int nameStart = i + 1;
      int nameEnd = stringEnd(v, nameStart);
      if (nameEnd < 0) {
        return null;
      }
      i = skip(v, nameEnd + 1);
      if (i >= n || v[i] != ':') {
        return null;
      }
      i = skip(v, i + 1);
      if (i >= n) {
        return null;
      }
      JsonNode node;
      byte b = v[i];
      if (b == '"') {
        int end = stringEnd(v, i + 1);
        if (end < 0) {
          return null;
        }
        node = TextNode.valueOf(text(v, i + 1, end));
        i = end + 1;
      } else if (b == '-' || (b >= '0' && b <= '9')) {
        boolean negative = b == '-';
        if (negative) {
          i++;
        }
        int digitsFrom = i;
        long value = 0;
        while (i < n && v[i] >= '0' && v[i] <= '9') {
          value = value * 10 + (v[i] - '0');
          i++;
        }
        int digits = i - digitsFrom;
        // fractions, exponents, leading zeros and long numbers keep the exact rules of the token reader
        if (digits == 0 || digits > MAX_DIGITS || (digits > 1 && v[digitsFrom] == '0')
            || (i < n && (v[i] == '.' || v[i] == 'e' || v[i] == 'E'))) {
          return null;
        }
        value = negative ? -value : value;
        // as Jackson's token: an int when the value fits one, else a long
        node = value == (int) value ? IntNode.valueOf((int) value) : LongNode.valueOf(value);
      } else if (literal(v, i, "true")) {
        node = BooleanNode.TRUE;
        i += 4;
      } else if (literal(v, i, "false")) {
        node = BooleanNode.FALSE;
        i += 5;
      } else if (literal(v, i, "null")) {
        node = NullNode.getInstance();
        i += 4;
      } else {
        return null; // objects, arrays, anything malformed
      }
      int column = column(v, nameStart, nameEnd);
      if (column >= 0) {
        if (byColumn[column] != null) {
          return null; // a repeated field: the tree decides which value counts
        }
        byColumn[column] = node;
      } else {
        String name = text(v, nameStart, nameEnd);
        if (undeclared == null) {
          undeclared = new ArrayList<>(2);
        } else if (undeclared.contains(name)) {
          return null;
        }
        undeclared.add(name);
      }
      i = skip(v, i);
      if (i >= n) {
        return null;
      }
      if (v[i] == ',') {
        i = skip(v, i + 1);
      } else if (v[i] == '}') {
        // the tree parse refuses trailing tokens with its own message
        return skip(v, i + 1) == n ? new FlatJsonObject.Fields(byColumn, undeclared == null ? List.of() : undeclared)
            : null;
      } else {
        return null;
      }
    }
  }

  /** The index of the closing quote of the string starting at {@code from}, or -1 for escapes or control bytes. */
  private static int stringEnd(byte[] v, int from) {
    for (int i = from; i < v.length; i++) {
      byte b = v[i];
      if (b == '"') {
        return i;
      }
      if (b == '\\' || (b >= 0 && b < 0x20)) {
        return -1;
      }
    }
    return -1;
  }

  /** The text of {@code v[from, to)}: the caller checked the bytes are UTF-8 ({@link StrictText#checkJson}). */
  private static String text(byte[] v, int from, int to) {
    for (int i = from; i < to; i++) {
      if (v[i] < 0) {
        return new String(v, from, to - from, StandardCharsets.UTF_8);
      }
    }
    // ASCII: Latin-1 decoding is a plain copy into a compact string
    return new String(v, from, to - from, StandardCharsets.ISO_8859_1);
  }

  private int column(byte[] v, int from, int to) {
    int s = hash(v, from, to) & mask;
    for (int slot = slots[s]; slot != 0; s = (s + 1) & mask, slot = slots[s]) {
      byte[] name = names[slot - 1];
      if (name.length == to - from && java.util.Arrays.equals(name, 0, name.length, v, from, to)) {
        return slot - 1;
      }
    }
    return -1;
  }

  private static int hash(byte[] v, int from, int to) {
    int h = 0;
    for (int i = from; i < to; i++) {
      h = 31 * h + v[i];
    }
    return h ^ (h >>> 16);
  }

  private static boolean literal(byte[] v, int at, String word) {
    if (at + word.length() > v.length) {
      return false;
    }
    for (int k = 0; k < word.length(); k++) {
      if (v[at + k] != word.charAt(k)) {
        return false;
      }
    }
    return true; // "truex": the separator check after the value declines it
  }

  /** The index of the first byte at or after {@code i} that is not JSON whitespace. */
  private static int skip(byte[] v, int i) {
    while (i < v.length) {
      byte b = v[i];
      if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
        return i;
      }
      i++;
    }
    return i;
  }
}
