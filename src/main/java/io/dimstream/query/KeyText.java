package io.dimstream.query;

import com.fasterxml.jackson.databind.node.TextNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The text form of a business key, shared by the CLI ({@code --key}) and the HTTP paths: {@code col=value} pairs
 * separated by commas in any order ({@code region=eu,customer_id=42}), every key column exactly once; a
 * single-column key may be given bare ({@code 42}). Values are read as the column's type; they cannot contain
 * a comma. A number must be ASCII digits with an optional leading {@code -} (and for a double or decimal column
 * a {@code .} fraction and an exponent): no spaces, no {@code +}, no other digits. In a URL the whole text is one
 * path segment, percent-encoded as usual.
 */
public final class KeyText {
  private static final Pattern WHOLE = Pattern.compile("-?[0-9]+");
  private static final Pattern DECIMAL = Pattern.compile("-?[0-9]+(\\.[0-9]+)?([eE]-?[0-9]+)?");

  private KeyText() {}

  /**
   * Parses a key.
   *
   * @throws QueryException {@link QueryException.Reason#BAD_INPUT} for an empty key, an unknown or missing key
   *                        column, a part that is not {@code col=value}, or a value of the wrong type
   */
  public static BusinessKey parse(DimensionSpec spec, String text) {
    if (text == null || text.isBlank()) {
      throw QueryErrors.emptyKey();
    }
    List<Column> keys = spec.keyColumns();
    if (!text.contains("=")) {
      if (keys.size() != 1) {
        throw QueryErrors.missingKeyColumns(spec, text, spec.key());
      }
      return BusinessKey.of(value(keys.get(0), text));
    }
    Map<String, String> given = new LinkedHashMap<>();
    for (String part : text.split(",", -1)) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw QueryErrors.malformedKeyPart(spec, text, part);
      }
      String col = part.substring(0, eq).trim();
      if (!spec.key().contains(col)) {
        throw QueryErrors.unknownKeyColumn(spec, col);
      }
      if (given.put(col, part.substring(eq + 1)) != null) {
        throw QueryErrors.duplicateKeyColumn(text, col);
      }
    }
    List<String> missing = spec.key().stream().filter(c -> !given.containsKey(c)).toList();
    if (!missing.isEmpty()) {
      throw QueryErrors.missingKeyColumns(spec, text, missing);
    }
    List<Object> values = new ArrayList<>(keys.size());
    for (Column c : keys) {
      values.add(value(c, given.get(c.name())));
    }
    return new BusinessKey(values);
  }

  /** The canonical text of a key: the bare value for a single-column key, else {@code col=value,...} in key order. */
  public static String format(DimensionSpec spec, BusinessKey key) {
    List<Column> keys = spec.keyColumns();
    if (keys.size() == 1) {
      return String.valueOf(key.values().get(0));
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < keys.size(); i++) {
      b.append(i == 0 ? "" : ",").append(keys.get(i).name()).append('=').append(key.values().get(i));
    }
    return b.toString();
  }

  private static Object value(Column c, String given) {
    // Long.parseLong would read "+42" and Arabic-Indic digits as 42, and trimming would read " 42" (a stray
    // "%20" in a URL) as 42: such keys come from client bugs or locale formatting and must not match a key
    String text = isNumeric(c) ? given : given.trim();
    if (text.isEmpty()) {
      throw QueryErrors.badKeyValue(c.name(), c.type(), text, "a key value cannot be empty");
    }
    if (isNumeric(c) && !canonicalNumber(c, text)) {
      throw QueryErrors.badKeyValue(c.name(), c.type(), text, "a number key is written in ASCII digits with an "
          + "optional leading '-'" + (isWhole(c) ? "" : ", '.' and exponent") + ", without spaces or '+'");
    }
    try {
      return ColumnValues.fromJson(TextNode.valueOf(text), c.type());
    } catch (IllegalArgumentException e) {
      throw QueryErrors.badKeyValue(c.name(), c.type(), text, e.getMessage());
    }
  }

  private static boolean isNumeric(Column c) {
    return switch (c.type().kind()) {
      case LONG, INT, DOUBLE, DECIMAL -> true;
      default -> false;
    };
  }

  private static boolean isWhole(Column c) {
    return c.type().kind() == ColumnType.Kind.LONG || c.type().kind() == ColumnType.Kind.INT;
  }

  private static boolean canonicalNumber(Column c, String text) {
    return (isWhole(c) ? WHOLE : DECIMAL).matcher(text).matches();
  }
}
