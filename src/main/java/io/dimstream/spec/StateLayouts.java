package io.dimstream.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.types.Column;
import java.util.ArrayList;
import java.util.List;

/**
 * The attribute layouts a dimension's stored state may hold besides its spec's own: for each spec the table was
 * evolved from whose attribute columns ({@link DimensionSpec#attributeColumns()}) differ, their names in order,
 * oldest first. The topology keeps an event's attributes by position, so a record written under an earlier spec is
 * read by mapping its values to the current columns by name; the attribute count a record carries tells its layout
 * apart, because columns are only ever added (a pure reorder is refused when the table is evolved).
 *
 * <p>Kept in the table property {@value #PROPERTY} as a JSON array of arrays of column names, so every instance that
 * restores state from a changelog knows them. Immutable.
 *
 * @param earlier the earlier layouts, oldest first; each a list of attribute column names
 */
public record StateLayouts(List<List<String>> earlier) {
  /** The table property that holds the earlier layouts. */
  public static final String PROPERTY = "dimstream.stateLayouts";
  /** No earlier layout: the state holds the spec's own. */
  public static final StateLayouts NONE = new StateLayouts(List.of());

  private static final ObjectMapper JSON = new ObjectMapper();

  public StateLayouts {
    earlier = earlier.stream().map(List::copyOf).toList();
  }

  /** The attribute column names of {@code spec}, in the order its state holds their values. */
  public static List<String> layoutOf(DimensionSpec spec) {
    return spec.attributeColumns().stream().map(Column::name).toList();
  }

  /**
   * These layouts after the table's spec went from {@code from} to {@code to}: {@code from}'s layout is added when
   * it differs from {@code to}'s and is not already the newest earlier one.
   */
  public StateLayouts evolved(DimensionSpec from, DimensionSpec to) {
    List<String> old = layoutOf(from);
    if (old.equals(layoutOf(to)) || (!earlier.isEmpty() && earlier.get(earlier.size() - 1).equals(old))) {
      return this;
    }
    List<List<String>> out = new ArrayList<>(earlier);
    out.add(old);
    return new StateLayouts(out);
  }

  /**
   * Reads the property's value; null or blank is {@link #NONE}.
   *
   * @throws IllegalArgumentException when the text is not a JSON array of arrays of strings
   */
  public static StateLayouts parse(String text) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw notLayouts(text, e.getOriginalMessage());
    }
    if (root == null || !root.isArray()) {
      throw notLayouts(text, "not a JSON array");
    }
    List<List<String>> layouts = new ArrayList<>();
    for (JsonNode layout : root) {
      if (!layout.isArray()) {
        throw notLayouts(text, "the entry " + layout + " is not an array of column names");
      }
      List<String> names = new ArrayList<>();
      for (JsonNode name : layout) {
        if (!name.isTextual()) {
          throw notLayouts(text, "the entry " + layout + " holds " + name + ", not a column name");
        }
        names.add(name.asText());
      }
      layouts.add(names);
    }
    return new StateLayouts(layouts);
  }

  /** The property's value: a JSON array of arrays of column names, oldest first. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(earlier);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render " + earlier, e);
    }
  }

  private static IllegalArgumentException notLayouts(String text, String why) {
    return new IllegalArgumentException("the table property " + PROPERTY + " is '" + text + "': " + why
        + "; it must be a JSON array of arrays of attribute column names, as dimstream writes it when the spec gains"
        + " columns. Fix: restore the value an earlier table version holds (time travel: the table's metaData)");
  }
}
