package io.dimstream.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.PostgresSource;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.DeltaTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a dimension spec that may capture a table itself ({@code source: postgres:}). What the spec leaves out is
 * taken from the table: {@code columns} (every column, in table order), {@code key} (the primary key),
 * {@code format: debezium-json}, {@code sequence: [source.sequence]} (commit order) and
 * {@code topics.changes_keyed_by_business_key: true} (the source writes each record in its key's partition).
 */
public final class SourcedSpecs {
  private static final Logger LOG = LoggerFactory.getLogger(SourcedSpecs.class);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** A spec with its database source, if it has one. */
  public record Sourced(DimensionSpec spec, Optional<PostgresSource> source) {}

  private SourcedSpecs() {}

  /**
   * Loads {@code file}; with a database source and no {@code columns} or {@code key}, asks the database for them.
   *
   * @throws io.dimstream.spec.SpecException when the spec is invalid
   * @throws SourceException when the database cannot be reached or the table lacks what the spec leaves out
   */
  public static Sourced load(Path file) {
    return load(file, UnaryOperator.identity());
  }

  /**
   * As {@link #load(Path)}, with the command line's {@code overrides} of the service settings applied. Columns
   * taken from the table are those of the first start: when the Delta table already exists, a column the database
   * table gained since (ALTER TABLE ADD COLUMN) is left out, so its values are undeclared fields
   * ({@code unknown_fields}) until the spec declares it, and the dimension's stored events keep their shape.
   */
  public static Sourced load(Path file, UnaryOperator<DimensionSpec> overrides) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(file));
    } catch (IOException | RuntimeException e) {
      // the loader says what is wrong
      return new Sourced(overrides.apply(DimensionSpecLoader.load(file)), Optional.empty());
    }
    if (!(root instanceof ObjectNode tree) || !PostgresSource.declaredIn(root) || !root.hasNonNull("name")) {
      return new Sourced(overrides.apply(DimensionSpecLoader.load(file)), Optional.empty());
    }
    PostgresSource source = PostgresSource.parse(root.get("source"), root.get("name").asText(), file);
    boolean derivedColumns = !tree.has("columns") && !tree.has("schema");
    complete(tree, source);
    DimensionSpec spec = overrides.apply(DimensionSpecLoader.parse(tree, file));
    TableLocation location = spec.service().tablePath();
    ObjectStore store = ObjectStores.open(location, spec.service().storage());
    if (derivedColumns && holdsTable(store, location)) {
      DimensionSpec written = DeltaTable.open(store).spec();
      ObjectNode columns = (ObjectNode) tree.get("columns");
      List<String> added = new ArrayList<>();
      columns.fieldNames().forEachRemaining(c -> {
        if (written.column(c) == null) {
          added.add(c);
        }
      });
      if (!added.isEmpty()) {
        LOG.warn("{}: the columns {} of {} are newer than the table {}; their values are undeclared fields"
            + " (unknown_fields) until the spec declares them under 'columns:'", file, added, source, location);
        columns.remove(added);
        spec = overrides.apply(DimensionSpecLoader.parse(tree, file));
      }
    }
    return new Sourced(spec, Optional.of(source));
  }

  private static void complete(ObjectNode tree, PostgresSource source) {
    if (tree.has("format")) {
      String f = tree.get("format").asText();
      if (!f.equals("debezium-json") && !f.equals("debezium")) {
        throw SourceErrors.notDebezium(f);
      }
    } else {
      tree.put("format", "debezium-json");
    }
    if (!tree.has("sequence") && !tree.has("debezium")) {
      tree.putArray("sequence").add("source.sequence");
    }
    JsonNode topics = tree.get("topics");
    if (topics == null || topics.isNull()) {
      topics = tree.putObject("topics");
    }
    if (topics instanceof ObjectNode t && !t.has("changes_keyed_by_business_key")) {
      t.put("changes_keyed_by_business_key", true);
    }
    boolean needColumns = !tree.has("columns") && !tree.has("schema");
    if (!needColumns && tree.has("key")) {
      return;
    }
    try (PostgresCatalog catalog = PostgresCatalog.open(source)) {
      PostgresCatalog.TableShape shape = catalog.shape();
      if (needColumns) {
        if (!shape.unsupported().isEmpty()) {
          throw SourceErrors.unsupportedColumns(source, shape.unsupported());
        }
        ObjectNode columns = tree.putObject("columns");
        shape.columns().forEach(columns::put);
      }
      if (!tree.has("key")) {
        if (shape.primaryKey().isEmpty()) {
          throw SourceErrors.noPrimaryKey(source);
        }
        com.fasterxml.jackson.databind.node.ArrayNode key = tree.putArray("key");
        shape.primaryKey().forEach(key::add);
      }
    }
  }

  private static boolean holdsTable(ObjectStore store, TableLocation location) {
    try {
      return DeltaTable.exists(store);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(location + ": cannot list the table's log: " + e.getMessage(), e);
    }
  }
}
