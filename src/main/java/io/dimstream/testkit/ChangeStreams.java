package io.dimstream.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Generates a realistic, reproducible change stream for any dimension spec: in-order updates, late events,
 * exact duplicates, no-change updates, deletes and re-inserts, and events that share a sequence. Use it to
 * test your own pipeline, e.g.
 *
 * <pre>{@code
 * GeneratedStream s = ChangeStreams.random(spec, 42).keys(100).events(5_000)
 *     .late(0.05).duplicates(0.02).deletes(0.01).generate();
 * s.writeJsonLines(path);                       // feed dimstream (produce, replay, backfill)
 * List<Version> expected = Scd2Fold.fold(spec, s.events()); // the reference history
 * }</pre>
 *
 * Late events stay within half the spec's lateness horizon so none is rejected. Supports the {@code json} and
 * {@code debezium-json} input formats. Spec expressions are not applied to the generated events: a spec with
 * {@code delete: {when: ..}} gets no deletes, and for one with {@code derive} the reference history is
 * {@code Scd2Fold.fold(spec.trackedMask(), SpecExpressions.compile(spec).derivation(), s.events())}.
 */
public final class ChangeStreams {
  private final DimensionSpec spec;
  private final long seed;
  private int keys = 10;
  private int events = 100;
  private double late = 0.05;
  private double duplicates = 0.02;
  private double deletes = 0.01;
  private double noChange = 0.1;
  private double sameSequence = 0.01;
  private Instant start = Instant.parse("2026-01-01T00:00:00Z");

  private ChangeStreams(DimensionSpec spec, long seed) {
    this.spec = spec;
    this.seed = seed;
  }

  public static ChangeStreams random(DimensionSpec spec, long seed) {
    return new ChangeStreams(spec, seed);
  }

  public ChangeStreams keys(int n) {
    this.keys = positive(n, "keys");
    return this;
  }

  public ChangeStreams events(int n) {
    this.events = positive(n, "events");
    return this;
  }

  /** Share of events that arrive after a newer event of the same key. */
  public ChangeStreams late(double share) {
    this.late = share(share, "late");
    return this;
  }

  /** Share of events that are exact copies of an earlier event. */
  public ChangeStreams duplicates(double share) {
    this.duplicates = share(share, "duplicates");
    return this;
  }

  public ChangeStreams deletes(double share) {
    this.deletes = share(share, "deletes");
    return this;
  }

  /** Share of updates that repeat the key's current tracked values (they create no version). */
  public ChangeStreams noChange(double share) {
    this.noChange = share(share, "noChange");
    return this;
  }

  /** Share of events that reuse the sequence of an earlier event of the key with other values. */
  public ChangeStreams sameSequence(double share) {
    this.sameSequence = share(share, "sameSequence");
    return this;
  }

  /** The sequence time of the first events (timestamp and date sequences). */
  public ChangeStreams startingAt(Instant instant) {
    this.start = instant;
    return this;
  }

  public GeneratedStream generate() {
    if (spec.inputFormat() == InputFormat.AVRO) {
      throw new IllegalArgumentException("ChangeStreams generates JSON; the spec '" + spec.name()
          + "' reads Avro. Generate with a copy of the spec that uses format: json.");
    }
    Random rnd = new Random(seed);
    List<Column> attrs = spec.attributeColumns();
    ColumnType firstSeqType = spec.sequenceColumns().get(0).type();
    long step = switch (firstSeqType.kind()) {
      case TIMESTAMP -> 60_000_000L; // one minute in micros
      case DATE -> 1;
      default -> 10;
    };
    long horizon = spec.latenessHorizon() == Long.MAX_VALUE ? Long.MAX_VALUE / 4 : spec.latenessHorizon();
    long origin = switch (firstSeqType.kind()) {
      case TIMESTAMP -> ChronoUnit.MICROS.between(Instant.EPOCH, start);
      case DATE -> LocalDate.ofInstant(start, java.time.ZoneOffset.UTC).toEpochDay();
      default -> 1_000;
    };
    long[] newest = new long[keys];
    Arrays.fill(newest, origin);
    @SuppressWarnings("unchecked")
    List<ChangeEvent>[] history = new List[keys];
    @SuppressWarnings("unchecked")
    List<Object>[] current = new List[keys];
    for (int k = 0; k < keys; k++) {
      history[k] = new ArrayList<>();
    }
    List<ChangeEvent> out = new ArrayList<>(events);
    List<String> lines = new ArrayList<>(events);
    for (int i = 0; i < events; i++) {
      int k = rnd.nextInt(keys);
      BusinessKey key = keyOf(k);
      double dice = rnd.nextDouble();
      ChangeEvent e;
      if (dice < duplicates && !history[k].isEmpty()) {
        e = history[k].get(rnd.nextInt(history[k].size()));
      } else {
        dice -= duplicates;
        long first;
        if (dice < sameSequence && !history[k].isEmpty()) {
          first = history[k].get(rnd.nextInt(history[k].size())).sequence().first();
        } else if (dice < sameSequence + late && !history[k].isEmpty()) {
          long span = Math.max(1, Math.min(horizon / 2, newest[k] - origin));
          first = newest[k] - 1 - (long) (rnd.nextDouble() * span);
          first = Math.max(first, newest[k] - horizon / 2);
        } else {
          newest[k] += step * (1 + rnd.nextInt(60));
          first = newest[k];
        }
        Sequence seq = sequence(first, rnd);
        // a condition's deletes cannot be generated without knowing what makes it true
        boolean delete = spec.deleteRule() instanceof DeleteRule.None || spec.deleteRule() instanceof DeleteRule.When
            ? false : rnd.nextDouble() < deletes;
        if (delete) {
          e = ChangeEvent.delete(key, seq);
        } else {
          List<Object> values = new ArrayList<>(attrs.size());
          boolean repeat = current[k] != null && rnd.nextDouble() < noChange;
          for (int a = 0; a < attrs.size(); a++) {
            Column c = attrs.get(a);
            boolean keepTracked = repeat && spec.isTracked(c.name());
            values.add(keepTracked ? current[k].get(a) : value(c.type(), rnd));
          }
          e = ChangeEvent.upsert(key, seq, values);
          current[k] = values;
        }
      }
      history[k].add(e);
      out.add(e);
      lines.add(render(e));
    }
    return new GeneratedStream(spec, List.copyOf(out), List.copyOf(lines));
  }

  private Sequence sequence(long first, Random rnd) {
    long[] parts = new long[spec.sequence().size()];
    parts[0] = first;
    for (int i = 1; i < parts.length; i++) {
      parts[i] = rnd.nextInt(3);
    }
    return Sequence.of(parts);
  }

  private BusinessKey keyOf(int k) {
    List<Object> values = new ArrayList<>();
    List<Column> keyColumns = spec.keyColumns();
    for (int i = 0; i < keyColumns.size(); i++) {
      ColumnType t = keyColumns.get(i).type();
      // Composite keys: the last column varies fastest so keys share prefixes, as real ones do.
      int part = i == keyColumns.size() - 1 ? k : k % 3;
      values.add(switch (t.kind()) {
        case LONG -> (long) part + 1;
        case INT -> part + 1;
        case STRING -> String.format("k-%05d", part);
        case DECIMAL -> BigDecimal.valueOf(part + 1).setScale(t.scale());
        case DATE -> LocalDate.of(2020, 1, 1).plusDays(part);
        case TIMESTAMP -> Instant.parse("2020-01-01T00:00:00Z").plusSeconds(part);
        case BOOLEAN -> part % 2 == 0;
        case DOUBLE -> throw new IllegalStateException("double keys are not allowed");
      });
    }
    return new BusinessKey(values);
  }

  private static Object value(ColumnType t, Random rnd) {
    if (rnd.nextInt(20) == 0) {
      return null;
    }
    int v = rnd.nextInt(3);
    return switch (t.kind()) {
      case LONG -> (long) v;
      case INT -> v;
      case DOUBLE -> v + 0.5;
      case DECIMAL -> BigDecimal.valueOf(v * 100 + 25, 2).setScale(t.scale(), java.math.RoundingMode.DOWN);
      case BOOLEAN -> v == 0;
      case STRING -> "v" + v;
      case DATE -> LocalDate.of(2025, 1, 1).plusDays(v);
      case TIMESTAMP -> Instant.parse("2025-01-01T00:00:00Z").plusSeconds(v * 3600L);
    };
  }

  private String render(ChangeEvent e) {
    ObjectNode row = GeneratedStream.JSON.createObjectNode();
    List<Column> keyColumns = spec.keyColumns();
    for (int i = 0; i < keyColumns.size(); i++) {
      row.set(keyColumns.get(i).name(), ColumnValues.toJson(e.key().values().get(i), keyColumns.get(i).type()));
    }
    List<Column> seqColumns = spec.sequenceColumns();
    for (int i = 0; i < seqColumns.size(); i++) {
      ColumnType t = seqColumns.get(i).type();
      row.set(seqColumns.get(i).name(), ColumnValues.toJson(ColumnValues.sequenceValue(e.sequence().part(i), t), t));
    }
    List<Column> attrs = spec.attributeColumns();
    if (!e.delete()) {
      for (int a = 0; a < attrs.size(); a++) {
        if (e.attributes().get(a) == io.dimstream.model.Absent.VALUE) {
          continue; // left out of the row: the fold keeps the previous value under missing_fields: keep
        }
        row.set(attrs.get(a).name(), ColumnValues.toJson(e.attributes().get(a), attrs.get(a).type()));
      }
    }
    DeleteRule rule = spec.deleteRule();
    if (rule instanceof DeleteRule.ColumnEquals ce) {
      row.put(ce.column(), e.delete() ? ce.equals() : "u");
    } else if (rule instanceof DeleteRule.BooleanColumn bc) {
      row.put(bc.column(), e.delete());
    }
    JsonNode record = row;
    if (spec.inputFormat() == InputFormat.DEBEZIUM_JSON) {
      ObjectNode env = GeneratedStream.JSON.createObjectNode();
      env.set("before", e.delete() ? row : GeneratedStream.JSON.nullNode());
      env.set("after", e.delete() ? GeneratedStream.JSON.nullNode() : row);
      env.put("op", e.delete() ? "d" : "u");
      record = env;
    }
    try {
      return GeneratedStream.JSON.writeValueAsString(record);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  private static int positive(int n, String what) {
    if (n <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + n);
    }
    return n;
  }

  private static double share(double s, String what) {
    if (s < 0 || s > 1) {
      throw new IllegalArgumentException(what + " must be a share between 0 and 1, got " + s);
    }
    return s;
  }

  /** A generated stream: the events in arrival order and the same events as JSON records. */
  public record GeneratedStream(DimensionSpec spec, List<ChangeEvent> events, List<String> jsonLines) {
    static final ObjectMapper JSON = new ObjectMapper();

    public void writeJsonLines(Path file) {
      try {
        Files.write(file, jsonLines, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + file, e);
      }
    }

    public List<byte[]> values() {
      return jsonLines.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
    }
  }
}
