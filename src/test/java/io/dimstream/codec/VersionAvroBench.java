package io.dimstream.codec;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputFormat;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnType;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntToLongFunction;

/**
 * Avro version-record encode/decode micro-benchmark (not a test; run by hand): the hand-kept binary encoder of
 * {@link VersionAvro} against Avro's own {@code GenericDatumWriter}/{@code GenericDatumReader} with logical-type
 * conversions ({@link GenericVersionAvro}). Prints ns/record for 1M records per spec, best of several rounds.
 *
 * <p>Run: {@code mvn -o -q test-compile && java -cp target/classes:target/test-classes:$(cat cp.txt)
 * io.dimstream.codec.VersionAvroBench [records] [rounds]}.
 */
public final class VersionAvroBench {
  private static final PrintStream OUT = System.out;

  static final DimensionSpec CUSTOMERS = DimensionSpec.builder("customers")
      .column("customer_id", ColumnType.LONG).column("name", ColumnType.STRING).column("city", ColumnType.STRING)
      .column("tier", ColumnType.STRING).column("updated_at", ColumnType.TIMESTAMP).column("op", ColumnType.STRING)
      .key("customer_id").sequence("updated_at").track("city", "tier")
      .delete(new DeleteRule.ColumnEquals("op", "d")).outputFormat(OutputFormat.AVRO).build();

  static final DimensionSpec ALL_TYPES = DimensionSpec.builder("things")
      .column("region", ColumnType.STRING).column("id", ColumnType.INT).column("price", ColumnType.decimal(10, 2))
      .column("weight", ColumnType.DOUBLE).column("active", ColumnType.BOOLEAN).column("born", ColumnType.DATE)
      .column("seen", ColumnType.TIMESTAMP).column("stock", ColumnType.LONG).column("note", ColumnType.STRING)
      .column("day", ColumnType.DATE).column("lsn", ColumnType.LONG)
      .key("region", "id").sequence("day", "lsn").outputFormat(OutputFormat.AVRO).build();

  private VersionAvroBench() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    for (DimensionSpec spec : List.of(CUSTOMERS, ALL_TYPES)) {
      List<Version> versions = versions(spec, n, new Random(42));
      VersionAvro hand = new VersionAvro(spec);
      GenericVersionAvro generic = new GenericVersionAvro(spec);
      byte[][] encoded = new byte[n][];
      for (int i = 0; i < n; i++) {
        encoded[i] = hand.encodeValue(versions.get(i), ChangeKind.OPEN);
        if (!Arrays.equals(encoded[i], generic.encode(versions.get(i), ChangeKind.OPEN))) {
          throw new AssertionError("the encoders disagree on " + versions.get(i));
        }
      }
      report(spec, "hand-written", "encode", rounds, n, i -> hand.encodeValue(versions.get(i), ChangeKind.OPEN).length);
      report(spec, "generic", "encode", rounds, n, i -> generic.encode(versions.get(i), ChangeKind.OPEN).length);
      report(spec, "hand-written", "decode", rounds, n, i -> hand.decodeValue(encoded[i]).version().validFrom().first());
      report(spec, "generic", "decode", rounds, n, i -> {
        try {
          return generic.decode(encoded[i]).version().validFrom().first();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    }
  }

  private static void report(DimensionSpec spec, String impl, String op, int rounds, int n,
      IntToLongFunction f) {
    long best = Long.MAX_VALUE;
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sink += f.applyAsLong(i);
      }
      best = Math.min(best, System.nanoTime() - t0);
    }
    OUT.printf(Locale.ROOT, "{\"spec\":\"%s\",\"impl\":\"%s\",\"op\":\"%s\",\"records\":%d,\"ns_per_record\":%.1f,"
        + "\"sink\":%d}%n", spec.name(), impl, op, n, (double) best / n, sink);
  }

  private static List<Version> versions(DimensionSpec spec, int n, Random rnd) {
    List<Version> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      List<Object> key = new ArrayList<>();
      for (Column c : spec.keyColumns()) {
        key.add(value(c.type(), rnd, i));
      }
      List<Object> attrs = new ArrayList<>();
      for (Column c : spec.attributeColumns()) {
        attrs.add(rnd.nextInt(10) == 0 ? null : value(c.type(), rnd, i));
      }
      int parts = spec.sequenceColumns().size();
      long[] from = new long[parts];
      long[] to = new long[parts];
      for (int p = 0; p < parts; p++) {
        from[p] = 19_000 + rnd.nextInt(1000);
        to[p] = from[p] + 1 + rnd.nextInt(100);
      }
      if (spec.sequenceColumns().get(0).type().kind() == ColumnType.Kind.TIMESTAMP) {
        from[0] = 1_700_000_000_000_000L + rnd.nextInt(1_000_000_000);
        to[0] = from[0] + 3_600_000_000L;
      }
      out.add(new Version(new BusinessKey(key), Sequence.of(from), rnd.nextBoolean() ? null : Sequence.of(to), attrs));
    }
    return out;
  }

  private static Object value(ColumnType t, Random rnd, int i) {
    return switch (t.kind()) {
      case LONG -> (long) i * 7919;
      case INT -> i % 100_000;
      case DOUBLE -> rnd.nextDouble() * 1000;
      case DECIMAL -> BigDecimal.valueOf(rnd.nextInt(1_000_000), t.scale());
      case BOOLEAN -> rnd.nextBoolean();
      case STRING -> "value-" + rnd.nextInt(100_000);
      case DATE -> LocalDate.ofEpochDay(rnd.nextInt(30_000));
      case TIMESTAMP -> Instant.ofEpochSecond(1_700_000_000L + rnd.nextInt(1_000_000), rnd.nextInt(1_000_000) * 1000L);
    };
  }
}
