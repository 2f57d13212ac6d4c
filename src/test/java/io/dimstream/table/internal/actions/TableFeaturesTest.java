package io.dimstream.table.internal.actions;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.fixtures.SparkWrittenTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The protocol a table's metadata needs, as Delta Spark checks it (every feature in force listed at writer 7). */
class TableFeaturesTest {
  private static final String NOT_NULL_KEY = "{\"type\":\"struct\",\"fields\":["
      + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false,\"metadata\":{}},"
      + "{\"name\":\"name\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}";
  private static final String ALL_NULLABLE = "{\"type\":\"struct\",\"fields\":["
      + "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}";
  /** What earlier releases wrote for every merge-on-read table. */
  private static final Protocol PREVIOUS_RELEASE =
      new Protocol(3, 7, List.of("deletionVectors"), List.of("deletionVectors"));

  private static Metadata md(String schema, Map<String, String> conf) {
    return new Metadata("id", "t", schema, List.of(), conf, 0);
  }

  @Test
  void shouldListInvariantsAndAppendOnlyBesideDeletionVectorsInANewMergeOnReadTable() {
    Protocol p = TableFeatures.forNewTable(md(NOT_NULL_KEY, Map.of("delta.enableDeletionVectors", "true")));

    assertThat(p.minReaderVersion()).isEqualTo(3);
    assertThat(p.minWriterVersion()).isEqualTo(7);
    assertThat(p.readerFeatures()).containsExactly("deletionVectors");
    assertThat(p.writerFeatures()).containsExactly("appendOnly", "invariants", "deletionVectors");
  }

  @Test
  void shouldKeepACopyOnWriteTableAtReader1Writer2WhichImpliesInvariants() {
    Protocol p = TableFeatures.forNewTable(md(NOT_NULL_KEY, Map.of("delta.enableDeletionVectors", "false")));

    assertThat(p).isEqualTo(new Protocol(1, 2));
    assertThat(TableFeatures.missing(p, md(NOT_NULL_KEY, Map.of()))).isEmpty();
  }

  @Test
  void shouldFindInvariantsMissingFromTheProtocolOfThePreviousReleaseAndAddOnlyThat() {
    Metadata md = md(NOT_NULL_KEY, Map.of("delta.enableDeletionVectors", "true"));

    assertThat(TableFeatures.missing(PREVIOUS_RELEASE, md)).containsExactly("invariants");
    Protocol repaired = TableFeatures.protocolFor(PREVIOUS_RELEASE, md);
    assertThat(repaired.readerFeatures()).containsExactly("deletionVectors");
    assertThat(repaired.writerFeatures()).containsExactly("deletionVectors", "invariants");
    assertThat(TableFeatures.missing(repaired, md)).isEmpty();
    assertThat(TableFeatures.protocolFor(repaired, md)).isSameAs(repaired);
  }

  @Test
  void shouldNeedNoInvariantsWhenEveryColumnIsNullable() {
    Metadata md = md(ALL_NULLABLE, Map.of("delta.enableDeletionVectors", "true"));

    assertThat(TableFeatures.missing(PREVIOUS_RELEASE, md)).isEmpty();
  }

  @Test
  void shouldTakeAColumnInvariantOrANonNullableNestedStructFieldAsInvariants() {
    String invariant = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,"
        + "\"metadata\":{\"delta.invariants\":\"{\\\"expression\\\":{\\\"expression\\\":\\\"a > 0\\\"}}\"}}]}";
    String nested = "{\"type\":\"struct\",\"fields\":[{\"name\":\"s\",\"nullable\":true,\"metadata\":{},"
        + "\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"int\",\"nullable\":false,"
        + "\"metadata\":{}}]}}]}";
    String inArray = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"nullable\":true,\"metadata\":{},"
        + "\"type\":{\"type\":\"array\",\"containsNull\":true,\"elementType\":{\"type\":\"struct\",\"fields\":["
        + "{\"name\":\"x\",\"type\":\"int\",\"nullable\":false,\"metadata\":{}}]}}}]}";

    assertThat(TableFeatures.inForce(md(invariant, Map.of())).writer()).containsExactly("invariants");
    assertThat(TableFeatures.inForce(md(nested, Map.of())).writer()).containsExactly("invariants");
    assertThat(TableFeatures.inForce(md(inArray, Map.of())).writer()).as("Delta checks no nullability in arrays")
        .isEmpty();
  }

  @Test
  void shouldMoveACopyOnWriteTableToTableFeaturesForTypeWideningKeepingItsLegacyFeatures() {
    Metadata md = md(NOT_NULL_KEY, Map.of("delta.enableDeletionVectors", "false", "delta.enableTypeWidening", "true"));

    Protocol p = TableFeatures.protocolFor(new Protocol(1, 2), md);

    assertThat(p.readerFeatures()).containsExactly("typeWidening");
    assertThat(p.writerFeatures()).containsExactly("appendOnly", "invariants", "typeWidening");
  }

  @Test
  void shouldTakeThePreviewNameOfTypeWideningAsTheFeature() {
    Protocol preview = new Protocol(3, 7, List.of("typeWidening-preview"),
        List.of("typeWidening-preview", "invariants"));
    String widened = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":false,"
        + "\"metadata\":{\"delta.typeChanges\":[{\"fromType\":\"integer\",\"toType\":\"long\"}]}}]}";

    assertThat(TableFeatures.inForce(md(widened, Map.of())).reader()).containsExactly("typeWidening");
    assertThat(TableFeatures.missing(preview, md(widened, Map.of()))).isEmpty();
  }

  @Test
  void shouldListTheReaderAndWriterFeaturesOfPropertiesAndTypesOtherEnginesSet() {
    String ntz = "{\"type\":\"struct\",\"fields\":[{\"name\":\"t\",\"type\":\"timestamp_ntz\",\"nullable\":true,"
        + "\"metadata\":{}},{\"name\":\"g\",\"type\":\"long\",\"nullable\":true,"
        + "\"metadata\":{\"delta.generationExpression\":\"1\"}}]}";
    Metadata md = md(ntz, Map.of("delta.enableChangeDataFeed", "true", "delta.constraints.positive", "g > 0",
        "delta.columnMapping.mode", "name", "delta.enableDeletionVectors", "true"));

    TableFeatures.InForce f = TableFeatures.inForce(md);

    assertThat(f.reader()).containsExactlyInAnyOrder("columnMapping", "deletionVectors", "timestampNtz");
    assertThat(f.writer()).containsExactlyInAnyOrder("checkConstraints", "changeDataFeed", "generatedColumns",
        "columnMapping", "deletionVectors", "timestampNtz");
    Protocol p = TableFeatures.protocolFor(new Protocol(1, 2), md);
    assertThat(p.readerFeatures()).containsExactlyInAnyOrder("columnMapping", "deletionVectors", "timestampNtz");
    assertThat(p.writerFeatures()).containsExactlyInAnyOrder("appendOnly", "invariants", "checkConstraints",
        "changeDataFeed", "generatedColumns", "columnMapping", "deletionVectors", "timestampNtz");
  }

  @Test
  void shouldRaiseALegacyWriterVersionWhenOnlyLegacyWriterFeaturesAreMissing() {
    Metadata md = md(NOT_NULL_KEY, Map.of("delta.constraints.positive", "id > 0"));

    assertThat(TableFeatures.protocolFor(new Protocol(1, 2), md)).isEqualTo(new Protocol(1, 3));
    assertThat(TableFeatures.protocolFor(new Protocol(1, 1), md(NOT_NULL_KEY, Map.of())))
        .isEqualTo(new Protocol(1, 2));
  }

  @Test
  void shouldAddAWriterOnlyFeatureToTheWriterListAlone() {
    Metadata md = md(NOT_NULL_KEY, Map.of("delta.enableDeletionVectors", "true", "delta.appendOnly", "true"));
    Protocol complete = new Protocol(3, 7, List.of("deletionVectors"), List.of("deletionVectors", "invariants"));

    Protocol p = TableFeatures.protocolFor(complete, md);

    assertThat(p.readerFeatures()).containsExactly("deletionVectors");
    assertThat(p.writerFeatures()).containsExactly("deletionVectors", "invariants", "appendOnly");
  }

  /** What Spark writes when it moves a table to deletion vectors is complete by the same rules. */
  @Test
  void shouldFindNothingMissingInTheProtocolSparkWrote() throws IOException {
    Path log = SparkWrittenTables.table("dv-update").resolve("_delta_log");
    Protocol protocol = null;
    Metadata metadata = null;
    try (Stream<Path> files = Files.list(log)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        for (String line : Files.readAllLines(f)) {
          Action a = ActionCodec.fromJson(line);
          if (a instanceof Protocol p) {
            protocol = p;
          } else if (a instanceof Metadata m) {
            metadata = m;
          }
        }
      }
    }
    assertThat(protocol.writerFeatures()).contains("invariants");
    assertThat(TableFeatures.inForce(metadata).writer()).contains("invariants", "deletionVectors");
    assertThat(TableFeatures.missing(protocol, metadata)).isEmpty();
    assertThat(TableFeatures.missing(PREVIOUS_RELEASE, metadata)).containsExactly("invariants");
  }
}
