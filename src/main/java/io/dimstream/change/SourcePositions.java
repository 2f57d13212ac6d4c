package io.dimstream.change;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.types.Column;

/** Reads positions that are not plain numbers from a Debezium {@code source} block as longs that keep their order. */
final class SourcePositions {
  /** SQL Server LSN parts must fit these widths to pack into one long: 23 + 24 + 16 bits. */
  static final long MAX_VLF = (1L << 23) - 1;
  static final long MAX_BLOCK = (1L << 24) - 1;
  static final long MAX_SLOT = (1L << 16) - 1;

  private SourcePositions() {}

  /** Whether the {@code source} field needs a conversion of its own (else it is read by its column type). */
  static boolean isSpecial(String field) {
    return field.equals("file") || field.equals("change_lsn") || field.equals("commit_lsn")
        || field.startsWith(SEQUENCE_ELEMENT);
  }

  /** Postgres' {@code source.sequence} is read element by element: {@code sequence.0}, {@code sequence.1}. */
  static final String SEQUENCE_ELEMENT = "sequence.";

  /** The field of the {@code source} block a sequence field is found in: {@code sequence} for its elements. */
  static String envelopeField(String field) {
    return field.startsWith(SEQUENCE_ELEMENT) ? "sequence" : field;
  }

  /**
   * One element of Postgres' {@code source.sequence}, {@code "[\"24233888\",\"24233968\"]"}: [last committed
   * LSN, LSN of the change] as digit strings. The first is null until the connector has seen a commit (snapshot
   * rows, the first transaction streamed after them): it reads as 0, before every later commit.
   */
  private static long sequenceElement(String field, JsonNode node, Column column) throws RejectedRecord {
    int index = field.equals(SEQUENCE_ELEMENT + "0") ? 0 : field.equals(SEQUENCE_ELEMENT + "1") ? 1 : -1;
    JsonNode array;
    try {
      array = node.isArray() ? node : JsonRecords.READER.readTree(node.asText());
    } catch (java.io.IOException e) {
      array = null;
    }
    if (index < 0 || array == null || !array.isArray() || array.size() != 2) {
      throw ChangeErrors.badType(column, "expected Postgres' source.sequence, a JSON array of two LSNs such as"
          + " [\"24233888\",\"24233968\"], got " + ChangeErrors.shown(node.toString()));
    }
    JsonNode e = array.get(index);
    if (e.isNull() && index == 0) {
      return 0L;
    }
    String text = e.asText();
    if (text.isEmpty() || text.length() > 19 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw ChangeErrors.badType(column, "expected an LSN as a number in source.sequence, got "
          + ChangeErrors.shown(node.toString()));
    }
    return Long.parseLong(text);
  }

  /** {@code file}: a MySQL binlog file ("mysql-bin.000003") ordered by its index; an LSN packed into a long. */
  static long read(String field, JsonNode node, Column column) throws RejectedRecord {
    if (field.startsWith(SEQUENCE_ELEMENT)) {
      return sequenceElement(field, node, column);
    }
    String text = node.asText();
    if (field.equals("file")) {
      int dot = text.lastIndexOf('.');
      String index = dot < 0 ? "" : text.substring(dot + 1);
      if (index.isEmpty() || index.length() > 18 || !index.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw ChangeErrors.badType(column, "expected a binlog file name ending in its index, such as"
            + " \"mysql-bin.000003\", got " + ChangeErrors.shown(text));
      }
      return Long.parseLong(index);
    }
    String[] parts = text.split(":", -1);
    if (parts.length != 3 || !hex(parts[0], 8) || !hex(parts[1], 8) || !hex(parts[2], 4)) {
      throw ChangeErrors.badType(column, "expected a SQL Server LSN such as \"0000002b:00000358:0003\", got "
          + ChangeErrors.shown(text));
    }
    long vlf = Long.parseLong(parts[0], 16);
    long block = Long.parseLong(parts[1], 16);
    long slot = Long.parseLong(parts[2], 16);
    if (vlf > MAX_VLF || block > MAX_BLOCK) {
      throw ChangeErrors.badType(column, "the LSN " + text + " is outside the range dimstream orders by (virtual"
          + " log file up to " + Long.toHexString(MAX_VLF) + ", block up to " + Long.toHexString(MAX_BLOCK)
          + ", so that the LSN packs into one long); order by another source field, such as source.ts_ms");
    }
    return vlf << 40 | block << 16 | slot;
  }

  private static boolean hex(String s, int length) {
    return s.length() == length && s.chars().allMatch(c -> Character.digit(c, 16) >= 0 && c < 128);
  }
}
