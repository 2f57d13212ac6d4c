package io.dimstream.query;

import com.fasterxml.jackson.databind.node.TextNode;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * An equality filter on one key or attribute column, written {@code col=value} ({@code col=} matches null). The
 * value is read as the column's type, so {@code amount=10} matches a decimal 10.00 column value.
 */
public final class AttributeFilter implements Predicate<Version> {
  private final String column;
  private final boolean isKey;
  private final int index;
  private final Object value;

  private AttributeFilter(String column, boolean isKey, int index, Object value) {
    this.column = column;
    this.isKey = isKey;
    this.index = index;
    this.value = value;
  }

  /**
   * Parses {@code col=value}.
   *
   * @throws QueryException {@link QueryException.Reason#BAD_INPUT} for a missing {@code =}, an unknown column or a
   *                        value of the wrong type
   */
  public static AttributeFilter parse(DimensionSpec spec, String text) {
    int eq = text == null ? -1 : text.indexOf('=');
    if (eq <= 0) {
      throw QueryErrors.malformedFilter(String.valueOf(text));
    }
    String col = text.substring(0, eq).trim();
    String raw = text.substring(eq + 1);
    int keyIndex = spec.key().indexOf(col);
    List<Column> attrs = spec.attributeColumns();
    int attrIndex = -1;
    for (int i = 0; i < attrs.size(); i++) {
      if (attrs.get(i).name().equals(col)) {
        attrIndex = i;
      }
    }
    if (keyIndex < 0 && attrIndex < 0) {
      throw QueryErrors.unknownFilterColumn(spec, col);
    }
    Column c = keyIndex >= 0 ? spec.keyColumns().get(keyIndex) : attrs.get(attrIndex);
    Object v;
    try {
      v = raw.isEmpty() ? null : ColumnValues.fromJson(TextNode.valueOf(raw), c.type());
    } catch (IllegalArgumentException e) {
      throw QueryErrors.badFilterValue(col, c.type(), raw, e.getMessage());
    }
    return new AttributeFilter(col, keyIndex >= 0, keyIndex >= 0 ? keyIndex : attrIndex, v);
  }

  public String column() {
    return column;
  }

  @Override
  public boolean test(Version v) {
    Object actual = isKey ? v.key().values().get(index) : v.attributes().get(index);
    if (actual instanceof java.math.BigDecimal a && value instanceof java.math.BigDecimal b) {
      return a.compareTo(b) == 0;
    }
    return Objects.equals(actual, value);
  }
}
