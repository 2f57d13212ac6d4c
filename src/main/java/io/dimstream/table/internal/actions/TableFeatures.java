package io.dimstream.table.internal.actions;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The one place that decides which protocol a table's metadata needs: the table features the metadata puts in force
 * (a property, a column's nullability or type, a field's metadata), and the protocol that lists them all.
 *
 * <p>A protocol at reader version 3 / writer version 7 supports exactly the features it lists, so every feature in
 * force must be listed, the legacy ones included: a non-nullable column is the {@code invariants} feature, and a
 * table at writer 7 that does not list it is refused by Delta Spark ({@code DELTA_FEATURES_PROTOCOL_METADATA_MISMATCH}).
 * Below those versions a protocol supports the legacy features its version implies (writer 2: {@code appendOnly} and
 * {@code invariants}; 3 adds {@code checkConstraints}; 4 {@code changeDataFeed} and {@code generatedColumns}; 5
 * {@code columnMapping}; 6 {@code identityColumns}; reader 2: {@code columnMapping}). Moving a table to table
 * features keeps every feature its old protocol supported, as Delta Spark does.
 */
public final class TableFeatures {
  public static final String APPEND_ONLY = "appendOnly";
  public static final String INVARIANTS = "invariants";
  public static final String CHECK_CONSTRAINTS = "checkConstraints";
  public static final String CHANGE_DATA_FEED = "changeDataFeed";
  public static final String GENERATED_COLUMNS = "generatedColumns";
  public static final String COLUMN_MAPPING = "columnMapping";
  public static final String IDENTITY_COLUMNS = "identityColumns";
  public static final String TIMESTAMP_NTZ = "timestampNtz";
  public static final String VARIANT_TYPE = "variantType";
  public static final String V2_CHECKPOINT = "v2Checkpoint";
  public static final String ROW_TRACKING = "rowTracking";
  public static final String DOMAIN_METADATA = "domainMetadata";
  public static final String IN_COMMIT_TIMESTAMP = "inCommitTimestamp";
  public static final String ICEBERG_COMPAT_V1 = "icebergCompatV1";
  public static final String ICEBERG_COMPAT_V2 = "icebergCompatV2";

  /** The base of a new table, as Delta Spark creates one: reader 1 / writer 2 (appendOnly and invariants). */
  public static final Protocol NEW_TABLE_BASE = new Protocol(1, 2);

  /** Legacy writer versions 2 to 6, each with the features it adds to the one below. */
  private static final List<List<String>> WRITER_VERSION_FEATURES = List.of(
      List.of(), List.of(),
      List.of(APPEND_ONLY, INVARIANTS),
      List.of(CHECK_CONSTRAINTS),
      List.of(CHANGE_DATA_FEED, GENERATED_COLUMNS),
      List.of(COLUMN_MAPPING),
      List.of(IDENTITY_COLUMNS));

  private TableFeatures() {}

  /** The features a table's metadata puts in force: those readers must support, and those writers must. */
  public record InForce(Set<String> reader, Set<String> writer) {
    public InForce {
      reader = Collections.unmodifiableSet(new LinkedHashSet<>(reader));
      writer = Collections.unmodifiableSet(new LinkedHashSet<>(writer));
    }
  }

  /**
   * The features {@code md} puts in force. Reader-and-writer features (deletion vectors, type widening, column
   * mapping, timestamp without time zone, variant, v2 checkpoints) are in both sets.
   */
  public static InForce inForce(Metadata md) {
    Set<String> reader = new LinkedHashSet<>();
    Set<String> writer = new LinkedHashSet<>();
    Map<String, String> conf = md.configuration();
    SchemaFacts schema = SchemaFacts.of(md.schemaString());
    if (isTrue(conf, "delta.appendOnly")) {
      writer.add(APPEND_ONLY);
    }
    if (schema.invariants) {
      writer.add(INVARIANTS);
    }
    if (conf.keySet().stream().anyMatch(k -> k.startsWith("delta.constraints."))) {
      writer.add(CHECK_CONSTRAINTS);
    }
    if (isTrue(conf, "delta.enableChangeDataFeed")) {
      writer.add(CHANGE_DATA_FEED);
    }
    if (schema.generated) {
      writer.add(GENERATED_COLUMNS);
    }
    if (schema.identity) {
      writer.add(IDENTITY_COLUMNS);
    }
    String mapping = conf.getOrDefault("delta.columnMapping.mode", "none").trim().toLowerCase(Locale.ROOT);
    if (!mapping.equals("none")) {
      reader.add(COLUMN_MAPPING);
    }
    if (isTrue(conf, "delta.enableDeletionVectors")) {
      reader.add(Protocol.DELETION_VECTORS);
    }
    if (isTrue(conf, "delta.enableTypeWidening") || schema.typeChanges) {
      reader.add(Protocol.TYPE_WIDENING);
    }
    if (schema.timestampNtz) {
      reader.add(TIMESTAMP_NTZ);
    }
    if (schema.variant) {
      reader.add(VARIANT_TYPE);
    }
    if ("v2".equalsIgnoreCase(conf.getOrDefault("delta.checkpointPolicy", "classic").trim())) {
      reader.add(V2_CHECKPOINT);
    }
    if (isTrue(conf, "delta.enableRowTracking")) {
      writer.add(ROW_TRACKING);
      writer.add(DOMAIN_METADATA);
    }
    if (isTrue(conf, "delta.enableInCommitTimestamps")) {
      writer.add(IN_COMMIT_TIMESTAMP);
    }
    if (isTrue(conf, "delta.enableIcebergCompatV1")) {
      writer.add(ICEBERG_COMPAT_V1);
    }
    if (isTrue(conf, "delta.enableIcebergCompatV2")) {
      writer.add(ICEBERG_COMPAT_V2);
    }
    writer.addAll(reader);
    return new InForce(reader, writer);
  }

  /** The reader features {@code p} supports: its list at reader 3, else those its version implies. */
  public static Set<String> readerSupported(Protocol p) {
    if (p.minReaderVersion() >= 3) {
      return new LinkedHashSet<>(p.readerFeatureList());
    }
    return p.minReaderVersion() == 2 ? new LinkedHashSet<>(List.of(COLUMN_MAPPING)) : new LinkedHashSet<>();
  }

  /** The writer features {@code p} supports: its list at writer 7, else those its legacy version implies. */
  public static Set<String> writerSupported(Protocol p) {
    if (p.minWriterVersion() >= 7) {
      return new LinkedHashSet<>(p.writerFeatureList());
    }
    Set<String> out = new LinkedHashSet<>();
    for (int v = 2; v <= Math.min(p.minWriterVersion(), 6); v++) {
      out.addAll(WRITER_VERSION_FEATURES.get(v));
    }
    return out;
  }

  /**
   * The features {@code md} puts in force that {@code p} does not support, reader ones first; empty when the
   * protocol is complete. Type widening is supported under its preview name too.
   */
  public static List<String> missing(Protocol p, Metadata md) {
    InForce f = inForce(md);
    Set<String> reader = readerSupported(p);
    Set<String> writer = writerSupported(p);
    List<String> out = new ArrayList<>();
    for (String r : f.reader()) {
      if (!supported(reader, r)) {
        out.add(r);
      }
    }
    for (String w : f.writer()) {
      if (!supported(writer, w) && !out.contains(w)) {
        out.add(w);
      }
    }
    return sortedLike(out, f);
  }

  private static List<String> sortedLike(List<String> names, InForce f) {
    List<String> out = new ArrayList<>();
    for (String n : f.writer()) {
      if (names.contains(n)) {
        out.add(n);
      }
    }
    return out;
  }

  private static boolean supported(Set<String> features, String feature) {
    return features.contains(feature)
        || (feature.equals(Protocol.TYPE_WIDENING) && features.contains(Protocol.TYPE_WIDENING_PREVIEW));
  }

  /** The protocol of a new table with metadata {@code md}: {@link #NEW_TABLE_BASE} plus what {@code md} needs. */
  public static Protocol forNewTable(Metadata md) {
    return protocolFor(NEW_TABLE_BASE, md);
  }

  /**
   * {@code p} with every feature {@code md} puts in force: {@code p} itself when nothing is missing; a legacy
   * protocol when the missing features are all legacy writer features a higher writer version implies (never
   * lowering either version); otherwise reader 3 (when a reader feature is needed or {@code p} is already there) and
   * writer 7, listing what {@code p} supported (explicit or implied), then the missing features. Never removes a
   * feature.
   */
  public static Protocol protocolFor(Protocol p, Metadata md) {
    List<String> missing = missing(p, md);
    if (missing.isEmpty()) {
      return p;
    }
    InForce f = inForce(md);
    Set<String> reader = readerSupported(p);
    boolean needsReader = f.reader().stream().anyMatch(r -> !supported(reader, r));
    if (!needsReader && p.minWriterVersion() < 7) {
      int legacy = legacyWriterVersion(missing);
      if (legacy > 0) {
        return new Protocol(p.minReaderVersion(), Math.max(legacy, p.minWriterVersion()));
      }
    }
    Set<String> writer = writerSupported(p);
    for (String w : f.writer()) {
      if (!supported(writer, w)) {
        writer.add(w);
      }
    }
    if (!needsReader && p.minReaderVersion() < 3) {
      return new Protocol(p.minReaderVersion(), 7, null, List.copyOf(writer));
    }
    for (String r : f.reader()) {
      if (!supported(reader, r)) {
        reader.add(r);
      }
    }
    writer.addAll(reader.stream().filter(r -> !supported(writer, r)).toList());
    return new Protocol(3, 7, List.copyOf(reader), List.copyOf(writer));
  }

  /** The lowest legacy writer version that implies every one of {@code features}, or 0 when none does. */
  private static int legacyWriterVersion(List<String> features) {
    Set<String> implied = new LinkedHashSet<>();
    for (int v = 2; v <= 6; v++) {
      implied.addAll(WRITER_VERSION_FEATURES.get(v));
      // writer 4 also implies generatedColumns and writer 3 checkConstraints, which dimstream does not honour: the
      // change data feed goes to the table features protocol, which lists exactly what is supported
      if (implied.containsAll(features) && !features.contains(COLUMN_MAPPING) && !features.contains(CHANGE_DATA_FEED)) {
        return v;
      }
    }
    return 0;
  }

  private static boolean isTrue(Map<String, String> conf, String key) {
    return "true".equalsIgnoreCase(conf.getOrDefault(key, "false").trim());
  }

  /** What a schema string puts in force, found in one walk over its fields (structs, arrays and maps included). */
  private static final class SchemaFacts {
    boolean invariants;
    boolean generated;
    boolean identity;
    boolean typeChanges;
    boolean timestampNtz;
    boolean variant;

    static SchemaFacts of(String schemaString) {
      SchemaFacts facts = new SchemaFacts();
      try {
        facts.type(ActionCodec.JSON.readTree(schemaString), true);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("the table's schema is not JSON: " + schemaString, e);
      }
      return facts;
    }

    /** Walks {@code type}; {@code structPath} is false below an array or a map, where Delta checks no nullability. */
    private void type(JsonNode type, boolean structPath) {
      if (type.isTextual()) {
        String t = type.asText();
        timestampNtz |= t.equals("timestamp_ntz");
        variant |= t.equals("variant");
        return;
      }
      switch (type.path("type").asText()) {
        case "struct" -> {
          for (JsonNode field : type.path("fields")) {
            JsonNode md = field.path("metadata");
            invariants |= structPath && (!field.path("nullable").asBoolean(true) || md.has("delta.invariants"));
            generated |= md.has("delta.generationExpression");
            identity |= md.has("delta.identity.start") || md.has("delta.identity.step");
            typeChanges |= md.has("delta.typeChanges");
            type(field.path("type"), structPath);
          }
        }
        case "array" -> type(type.path("elementType"), false);
        case "map" -> {
          type(type.path("keyType"), false);
          type(type.path("valueType"), false);
        }
        default -> { }
      }
    }
  }
}
