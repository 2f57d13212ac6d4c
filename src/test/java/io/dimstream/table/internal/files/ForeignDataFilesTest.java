package io.dimstream.table.internal.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.storage.LocalStore;
import io.dimstream.table.internal.actions.AddFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.NanoTime;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Data files another engine wrote into a dimstream table, with the physical types it chose: every column OPTIONAL,
 * the columns in another order, timestamps as INT96 (Spark's default), TIMESTAMP_MILLIS, or MICROS and NANOS not
 * adjusted to UTC. The full read and the key-and-valid_from read of the position index both give the versions.
 */
class ForeignDataFilesTest {
  /** Sub-millisecond parts where the type holds them. */
  private static final Instant T1 = Instant.parse("2026-03-02T10:01:00.123456Z");
  private static final Instant T2 = Instant.parse("2026-03-05T01:25:00.5Z");

  @TempDir
  Path dir;

  enum Timestamps { INT96, MILLIS, MICROS_LOCAL, NANOS }

  static Stream<Timestamps> kinds() {
    return Stream.of(Timestamps.values());
  }

  @ParameterizedTest
  @MethodSource("kinds")
  void shouldReadTheVersionsAndTheirIdentitiesOfAFileWithOtherPhysicalTypes(Timestamps kind) throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
    TableLayout layout = new TableLayout(spec);
    List<Type> columns = new ArrayList<>();
    columns.add(timestamp(kind, "valid_to"));
    columns.add(Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("city"));
    columns.add(Types.optional(PrimitiveTypeName.INT64).named("customer_id"));
    for (String c : List.of("name", "email", "tier")) {
      columns.add(Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(c));
    }
    columns.add(timestamp(kind, "valid_from"));
    MessageType schema = new MessageType("spark_schema", columns);

    Instant from = truncated(T1, kind);
    Instant to = truncated(T2, kind);
    Path file = dir.resolve("is_current=false/part-00000.c000.snappy.parquet");
    Files.createDirectories(file.getParent());
    SimpleGroupFactory rows = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema).build()) {
      Group closed = rows.newGroup().append("customer_id", 1001L).append("name", "Ann").append("email", "a@x.org")
          .append("city", "Lyon").append("tier", "gold");
      put(closed, kind, "valid_from", from);
      put(closed, kind, "valid_to", to);
      w.write(closed);
      Group open = rows.newGroup().append("customer_id", 1001L).append("name", "Ann").append("email", "a@x.org")
          .append("city", "Paris");
      put(open, kind, "valid_from", to);
      w.write(open);
    }
    AddFile add = new AddFile("is_current=false/part-00000.c000.snappy.parquet", Map.of("is_current", "false"),
        Files.size(file), 0, true, null);
    BusinessKey key = new BusinessKey(List.of(1001L));
    Sequence fromSeq = Sequence.of(micros(from));
    Sequence toSeq = Sequence.of(micros(to));

    List<Version> full = new ArrayList<>();
    try (DataFiles.RowIterator it = DataFiles.read(new LocalStore(dir), add, layout, 0)) {
      it.forEachRemaining(full::add);
    }
    assertThat(full).containsExactly(
        new Version(key, fromSeq, toSeq, List.of("Ann", "a@x.org", "Lyon", "gold")),
        new Version(key, toSeq, null, java.util.Arrays.asList("Ann", "a@x.org", "Paris", null)));

    List<String> identities = new ArrayList<>();
    try (DataFiles.RowIterator it = DataFiles.readIdentities(new LocalStore(dir), add, layout, 0)) {
      while (it.hasNext()) {
        Version v = it.next();
        identities.add(v.key() + "@" + v.validFrom() + "#" + it.position());
      }
    }
    assertThat(identities).containsExactly(key + "@" + fromSeq + "#0", key + "@" + toSeq + "#1");
  }

  private static Type timestamp(Timestamps kind, String name) {
    return switch (kind) {
      case INT96 -> Types.optional(PrimitiveTypeName.INT96).named(name);
      case MILLIS -> Types.optional(PrimitiveTypeName.INT64)
          .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MILLIS)).named(name);
      case MICROS_LOCAL -> Types.optional(PrimitiveTypeName.INT64)
          .as(LogicalTypeAnnotation.timestampType(false, TimeUnit.MICROS)).named(name);
      case NANOS -> Types.optional(PrimitiveTypeName.INT64)
          .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.NANOS)).named(name);
    };
  }

  private static void put(Group g, Timestamps kind, String column, Instant t) {
    long epochDay = Math.floorDiv(t.getEpochSecond(), 86_400L);
    long nanosOfDay = (t.getEpochSecond() - epochDay * 86_400L) * 1_000_000_000L + t.getNano();
    switch (kind) {
      case INT96 -> g.append(column, new NanoTime((int) (epochDay + 2_440_588L), nanosOfDay));
      case MILLIS -> g.append(column, t.toEpochMilli());
      case MICROS_LOCAL -> g.append(column, micros(t));
      case NANOS -> g.append(column, t.getEpochSecond() * 1_000_000_000L + t.getNano());
    }
  }

  private static Instant truncated(Instant t, Timestamps kind) {
    return kind == Timestamps.MILLIS ? t.truncatedTo(ChronoUnit.MILLIS) : t;
  }

  private static long micros(Instant t) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, t);
  }
}
