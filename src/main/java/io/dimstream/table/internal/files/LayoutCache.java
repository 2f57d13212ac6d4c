package io.dimstream.table.internal.files;

import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Metadata;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The layout of each stored spec a table has had, built once per distinct {@code dimstream.spec}. */
public final class LayoutCache {
  private final Path root;
  private final Map<String, TableLayout> layouts = new ConcurrentHashMap<>();

  public LayoutCache(Path root) {
    this.root = root;
  }

  /**
   * The layout of the spec stored in {@code metadata}.
   *
   * @throws io.dimstream.table.TableException when the table has no dimstream spec, or it cannot be parsed
   */
  public TableLayout of(Metadata metadata) {
    String json = metadata.configuration().get(SpecCodec.PROPERTY);
    if (json == null) {
      throw TableErrors.notADimensionTable(root);
    }
    return layouts.computeIfAbsent(json, j -> {
      try {
        return new TableLayout(SpecCodec.fromJson(j));
      } catch (Exception e) {
        throw TableErrors.badStoredSpec(root, e);
      }
    });
  }
}
