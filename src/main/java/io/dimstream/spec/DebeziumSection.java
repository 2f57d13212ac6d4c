package io.dimstream.spec;

import static io.dimstream.spec.SpecNodes.checkKnown;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.types.ColumnType;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** The sequence and {@code debezium} options of a dimension read from Debezium change envelopes. */
final class DebeziumSection {
  private DebeziumSection() {}

  /**
   * The sequence of a Debezium dimension: as given, or the commit order of {@code debezium.connector}. Every
   * {@code source.*} name becomes a column of its implied type; a spec the decoder could not satisfy fails here.
   */
  static List<String> sequence(JsonNode root, List<String> given, Map<String, ColumnType> declaredTypes,
      DimensionSpecBuilder b, Path file) {
    List<String> sequence = DebeziumOrder.expand(given);
    JsonNode options = root.get("debezium");
    if (options != null) {
      if (!options.isObject() || !options.has("connector")) {
        throw SpecErrors.invalid(file, "debezium", "expected a mapping with 'connector'",
            "write e.g. debezium: {connector: postgresql}; connectors: " + DebeziumOrder.connectors());
      }
      checkKnown(options, "debezium", Set.of("connector"), file);
      String connector = options.get("connector").asText().toLowerCase(Locale.ROOT);
      List<String> order = DebeziumOrder.commitOrder(connector);
      if (order == null) {
        throw SpecErrors.invalid(file, "debezium.connector", "no default commit order is known for connector '"
            + connector + "'", "use one of " + DebeziumOrder.connectors() + ", or remove 'debezium' and list the"
            + " source fields that order commits under 'sequence' (e.g. sequence: [source.lsn])");
      }
      if (sequence.isEmpty()) {
        sequence = order;
      }
    }
    if (sequence.isEmpty()) {
      throw SpecErrors.invalid(file, "sequence", "no sequence is given",
          "set debezium: {connector: <one of " + DebeziumOrder.connectors() + ">} to order events as the database"
          + " commits them, or list the sequence, e.g. sequence: [source.lsn]");
    }
    for (String name : sequence) {
      if (!DebeziumOrder.isSourceField(name)) {
        continue;
      }
      ColumnType implied = DebeziumOrder.typeOf(name);
      ColumnType declared = declaredTypes.get(name);
      if (declared == null) {
        b.column(name, implied);
        declaredTypes.put(name, implied);
      } else if (!declared.equals(implied)) {
        throw SpecErrors.invalid(file, "columns." + name, "the envelope field '" + name + "' is read as a "
            + implied + ", but the column is declared as " + declared, "remove it from 'columns' (source fields"
            + " need no declaration) or declare it as " + implied);
      }
    }
    for (String name : declaredTypes.keySet()) {
      if (DebeziumOrder.isSourceField(name) && !sequence.contains(name)) {
        throw SpecErrors.invalid(file, "columns." + name, "'" + name + "' names a field of the envelope's 'source'"
            + " block, which is read only for the sequence; as a column it would be null in every event",
            "list it under 'sequence', or remove it from 'columns'");
      }
    }
    return sequence;
  }
}
