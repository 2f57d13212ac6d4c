package io.dimstream.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.codec.VersionJson;
import io.dimstream.enrich.EnrichmentCounters;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.streams.EnrichmentTopology;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.topology.TopologyRunner;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Drives a dimension's real topology (the one {@code dimstream run} runs) under Kafka Streams'
 * {@code TopologyTestDriver}: no broker, no threads, results right after {@link #send}. For your own tests of a
 * dimension spec and of the change streams you feed it:
 *
 * <pre>{@code
 * try (DimensionTestDriver dim = DimensionTestDriver.of(Path.of("customers.yaml"))) {
 *   dim.send("{\"customer_id\":42,\"city\":\"Oslo\",\"updated_at\":\"2026-01-01T00:00:00Z\"}");
 *   assertThat(dim.current(42).orElseThrow().attributes()).contains("Oslo");
 *   dim.assertInvariants();
 * }
 * }</pre>
 *
 * Key values are given in the spec's key order; a whole number is accepted for a long key, an ISO-8601 string
 * for a timestamp or date key. Not thread-safe. Close it to delete its state directory.
 */
public final class DimensionTestDriver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A record the topology sent to the dead-letter topic. */
  public record Rejection(String reason, String detail, byte[] key, byte[] value) {
    /** The rejected value as UTF-8 text, or null for a tombstone. */
    public String valueText() {
      return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
  }

  private final DimensionSpec spec;
  private final TopologyRunner runner;
  private final VersionJson json;
  private final List<Rejection> rejections = new ArrayList<>();

  private final Map<String, EnrichmentDriver> enrichments = new java.util.LinkedHashMap<>();

  private DimensionTestDriver(DimensionSpec spec) {
    this.spec = spec;
    this.runner = TopologyRunner.of(spec);
    this.json = new VersionJson(spec);
  }

  private DimensionTestDriver(DimensionSpec spec, List<EnrichmentSpec> enrichmentSpecs) {
    this.spec = spec;
    Map<String, EnrichmentCounters> counters = new java.util.HashMap<>();
    this.runner = TopologyRunner.builder(spec).addition(b -> counters.putAll(EnrichmentTopology.build(b, spec,
        enrichmentSpecs, 1, EnrichmentTopology.DEFAULT_TICK))).build();
    this.json = new VersionJson(spec);
    for (EnrichmentSpec e : enrichmentSpecs) {
      enrichments.put(e.name(), new EnrichmentDriver(runner.driver(), e, counters.get(e.name())));
    }
  }

  /**
   * Loads a dimension spec and enrichment specs of it (as {@code dimstream run --config .. --enrich ..} would) and
   * drives them together: send changes with {@link #send}, facts with {@link #sendFacts}, read {@link #enriched}.
   */
  public static DimensionTestDriver withEnrichments(Path specFile, Path... enrichmentSpecFiles) {
    List<EnrichmentSpec> specs = new ArrayList<>();
    for (Path f : enrichmentSpecFiles) {
      specs.add(EnrichmentSpecLoader.load(f));
    }
    return new DimensionTestDriver(DimensionSpecLoader.load(specFile), specs);
  }

  /** Sends fact records (JSON text) to the facts topic of the enrichment named {@code enrichment}. */
  public DimensionTestDriver sendFacts(String enrichment, String... records) {
    enrichment(enrichment).send(records);
    return this;
  }

  /** Every record the enrichment has emitted so far, in order (corrections follow the records they correct). */
  public List<EnrichmentDriver.EnrichedRecord> enriched(String enrichment) {
    return enrichment(enrichment).records();
  }

  /** The last record per fact key (its JSON text): what a compacted output topic or an upsert sink ends with. */
  public Map<String, com.fasterxml.jackson.databind.JsonNode> lastEnriched(String enrichment) {
    return enrichment(enrichment).last();
  }

  /** The enrichment's counters: enriched, unmatched, waited, corrected, dropped. */
  public EnrichmentCounters enrichmentCounters(String enrichment) {
    return enrichment(enrichment).counters();
  }

  /** Advances the wall clock: facts whose grace ran out are emitted, runs of dimension changes finished. */
  public DimensionTestDriver advanceWallClock(java.time.Duration by) {
    runner.driver().advanceWallClockTime(by);
    return this;
  }

  private EnrichmentDriver enrichment(String name) {
    EnrichmentDriver d = enrichments.get(name);
    if (d == null) {
      throw new IllegalArgumentException("no enrichment named '" + name + "' is driven; enrichments: "
          + enrichments.keySet() + ". Fix: load its spec with DimensionTestDriver.withEnrichments");
    }
    return d;
  }

  public static DimensionTestDriver of(DimensionSpec spec) {
    return new DimensionTestDriver(spec);
  }

  /** Loads the spec file (as {@code dimstream run --config} would) and drives it. */
  public static DimensionTestDriver of(Path specFile) {
    return new DimensionTestDriver(DimensionSpecLoader.load(specFile));
  }

  public DimensionSpec spec() {
    return spec;
  }

  /** Sends change records as they would appear on the changes topic (JSON text for json/debezium-json specs). */
  public DimensionTestDriver send(String... records) {
    runner.send(records);
    return this;
  }

  /** Sends change events given as maps of column name to value (rendered as JSON). */
  @SafeVarargs
  public final DimensionTestDriver send(Map<String, ?>... events) {
    for (Map<String, ?> e : events) {
      try {
        runner.send(null, JSON.writeValueAsBytes(e));
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
    }
    return this;
  }

  /** Sends one raw record: Avro bytes, a keyed record, or a tombstone ({@code value} null). */
  public DimensionTestDriver sendRecord(byte[] key, byte[] value) {
    runner.send(key, value);
    return this;
  }

  /** Sends a generated stream in its arrival order. */
  public DimensionTestDriver send(ChangeStreams.GeneratedStream stream) {
    stream.values().forEach(v -> runner.send(null, v));
    return this;
  }

  /** Every version the emitted records describe, sorted by key then {@code valid_from}. */
  public List<Version> versions() {
    return runner.history();
  }

  /** One key's versions, oldest first. */
  public List<Version> versions(Object... keyValues) {
    BusinessKey key = key(keyValues);
    return versions().stream().filter(v -> v.key().equals(key)).toList();
  }

  /** The key's open version, if it has one. */
  public Optional<Version> current(Object... keyValues) {
    return versions(keyValues).stream().filter(Version::isCurrent).findFirst();
  }

  /**
   * The key's version valid at {@code at} ({@code valid_from <= at < valid_to}, open versions included).
   *
   * @param at an {@link Instant} or ISO-8601 string for timestamp sequences, a {@link LocalDate} for dates, a
   *           number for numeric sequences
   */
  public Optional<Version> asOf(Object at, Object... keyValues) {
    long t = sequencePoint(at);
    return versions(keyValues).stream()
        .filter(v -> v.validAt(t))
        .findFirst();
  }

  /** The history as {@code dimstream replay} prints it: one JSON line per version. */
  public List<String> replayLines() {
    return versions().stream().map(json::replayLine).toList();
  }

  /** Records sent to the dead-letter topic so far. */
  public List<Rejection> dlq() {
    for (TopologyRunner.Rejection r : runner.rejections()) {
      rejections.add(new Rejection(r.reason(), r.detail(), r.key(), r.value()));
    }
    return List.copyOf(rejections);
  }

  /**
   * Checks the SCD2 invariants over every key: versions do not overlap, at most one is open, and only the
   * newest may be open. Throws {@link AssertionError} naming the first offending key.
   */
  public void assertInvariants() {
    Scd2Invariants.check(versions()).ifPresent(problem -> {
      throw new AssertionError(problem);
    });
  }

  private BusinessKey key(Object... values) {
    List<Column> cols = spec.keyColumns();
    if (values.length != cols.size()) {
      throw new IllegalArgumentException("the key of " + spec.name() + " has " + cols.size() + " column(s) "
          + spec.key() + ", got " + values.length + " value(s)");
    }
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      out.add(coerce(values[i], cols.get(i).type()));
    }
    return new BusinessKey(out);
  }

  private static Object coerce(Object v, ColumnType type) {
    return switch (type.kind()) {
      case LONG -> v instanceof Number n ? n.longValue() : Long.parseLong(v.toString());
      case INT -> v instanceof Number n ? n.intValue() : Integer.parseInt(v.toString());
      case DECIMAL -> ColumnValues.decimal(new BigDecimal(v.toString()), type);
      case DATE -> v instanceof LocalDate d ? d : LocalDate.parse(v.toString());
      case TIMESTAMP -> v instanceof Instant i ? i : ColumnValues.parseTimestamp(v.toString());
      case BOOLEAN -> v instanceof Boolean b ? b : Boolean.parseBoolean(v.toString());
      default -> v.toString();
    };
  }

  private long sequencePoint(Object at) {
    ColumnType type = spec.sequenceColumns().get(0).type();
    return ColumnValues.sequenceLong(coerce(at, type), type);
  }

  @Override
  public void close() {
    try {
      runner.close();
    } catch (UncheckedIOException e) {
      // best effort: what is left is a temporary directory
    }
  }
}
