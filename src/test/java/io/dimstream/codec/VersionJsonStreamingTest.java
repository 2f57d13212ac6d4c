package io.dimstream.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputColumns;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The streamed encoding of version records against the tree encoding it replaced: {@link VersionJson#row} plus the
 * change field, written by a plain Jackson mapper. Consumers of the versions topic (the compactor, users' readers,
 * a compacted topic's older records) see the same bytes whichever built them.
 */
class VersionJsonStreamingTest {
  private static final long SEED = 20_261_201L;
  private static final ObjectMapper TREE_WRITER = new ObjectMapper();

  static Stream<Named<DimensionSpec>> specs() {
    return Stream.of(
        Named.of("every type, composite timestamp sequence, version id, renamed columns", DimensionSpec.builder("things")
            .column("region", ColumnType.STRING)
            .column("born", ColumnType.DATE)
            .column("price", ColumnType.decimal(12, 4))
            .column("weight", ColumnType.DOUBLE)
            .column("seen", ColumnType.TIMESTAMP)
            .column("count", ColumnType.LONG)
            .column("rank", ColumnType.INT)
            .column("active", ColumnType.BOOLEAN)
            .column("note", ColumnType.STRING)
            .column("changed_at", ColumnType.TIMESTAMP)
            .column("sub", ColumnType.INT)
            .key("region", "born").sequence("changed_at", "sub")
            .output(new OutputColumns("from_ts", "to_ts", "current", "version_key"))
            .build()),
        Named.of("long key, long sequence, defaults", DimensionSpec.builder("plain")
            .column("id", ColumnType.LONG)
            .column("name", ColumnType.STRING)
            .column("amount", ColumnType.decimal(38, 9))
            .column("lsn", ColumnType.LONG)
            .key("id").sequence("lsn")
            .build()));
  }

  @ParameterizedTest
  @MethodSource("specs")
  void shouldWriteTheSameBytesAsTheTreeEncodingOnGeneratedVersions(DimensionSpec spec) {
    VersionJson codec = new VersionJson(spec);
    VersionRecordCodec.RecordEncoder reused = codec.encoder(); // one for every record, as a stream task keeps it
    Random random = new Random(SEED);
    for (int i = 0; i < 2_000; i++) {
      Version v = version(spec, random);
      for (ChangeKind kind : List.of(ChangeKind.OPEN, ChangeKind.CLOSE, ChangeKind.CORRECT)) {
        ObjectNode tree = codec.row(v);
        tree.put(VersionJson.CHANGE_FIELD, kind.wireName());
        byte[] expected = treeBytes(tree);
        byte[] actual = codec.encodeValue(v, kind);
        assertThat(new String(actual, StandardCharsets.UTF_8)).as("version %s (seed %s, #%s)", v, SEED, i)
            .isEqualTo(new String(expected, StandardCharsets.UTF_8));
        assertThat(actual).isEqualTo(expected);
        assertThat(reused.encodeValue(v, kind)).as("reused encoder, version %s (seed %s, #%s)", v, SEED, i)
            .isEqualTo(expected);
      }
      assertThat(codec.encodeKey(v.key(), v.validFrom())).as("key of %s (seed %s)", v, SEED)
          .isEqualTo(treeBytes(keyTree(spec, v)));
      assertThat(reused.encodeKey(v.key(), v.validFrom())).as("reused encoder, key of %s (seed %s)", v, SEED)
          .isEqualTo(treeBytes(keyTree(spec, v)));
    }
  }

  @ParameterizedTest
  @MethodSource("specs")
  void shouldWriteTheSameBytesAfterARecordFailedHalfWritten(DimensionSpec spec) {
    VersionJson codec = new VersionJson(spec);
    VersionRecordCodec.RecordEncoder reused = codec.encoder();
    Random random = new Random(SEED);
    Version good = version(spec, random);
    List<Object> wrongTypes = new ArrayList<>(good.attributes());
    wrongTypes.replaceAll(a -> new Object()); // fails at the first attribute, after the key was written
    Version bad = new Version(good.key(), good.validFrom(), good.validTo(), wrongTypes);
    reused.encodeValue(good, ChangeKind.OPEN);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> reused.encodeValue(bad, ChangeKind.OPEN))
        .isInstanceOf(RuntimeException.class);
    assertThat(reused.encodeValue(good, ChangeKind.CORRECT)).isEqualTo(codec.encodeValue(good, ChangeKind.CORRECT));
    assertThat(reused.encodeKey(good.key(), good.validFrom())).isEqualTo(codec.encodeKey(good.key(), good.validFrom()));
  }

  /** The record key as the tree encoding built it: key columns, then the validity start columns. */
  private static ObjectNode keyTree(DimensionSpec spec, Version v) {
    ObjectNode n = TREE_WRITER.createObjectNode();
    for (int i = 0; i < spec.keyColumns().size(); i++) {
      var c = spec.keyColumns().get(i);
      n.set(c.name(), ColumnValues.toJson(v.key().values().get(i), c.type()));
    }
    List<String> names = new ArrayList<>();
    names.add(spec.output().validFrom());
    names.addAll(spec.extraValidFromColumns());
    for (int i = 0; i < names.size(); i++) {
      var c = spec.sequenceColumns().get(i);
      n.set(names.get(i), ColumnValues.toJson(ColumnValues.sequenceValue(v.validFrom().part(i), c.type()), c.type()));
    }
    return n;
  }

  private static byte[] treeBytes(ObjectNode n) {
    try {
      return TREE_WRITER.writeValueAsBytes(n);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static Version version(DimensionSpec spec, Random r) {
    List<Object> key = new ArrayList<>();
    spec.keyColumns().forEach(c -> key.add(nonNull(c.type(), r)));
    List<Object> attrs = new ArrayList<>();
    spec.attributeColumns().forEach(c -> attrs.add(r.nextInt(5) == 0 ? null : nonNull(c.type(), r)));
    int parts = spec.sequenceColumns().size();
    Sequence from = sequence(spec, r, parts);
    Sequence to = r.nextBoolean() ? null : sequence(spec, r, parts);
    return new Version(new BusinessKey(key), from, to, attrs);
  }

  private static Sequence sequence(DimensionSpec spec, Random r, int parts) {
    long[] p = new long[parts];
    for (int i = 0; i < parts; i++) {
      ColumnType t = spec.sequenceColumns().get(i).type();
      p[i] = t.kind() == ColumnType.Kind.TIMESTAMP ? r.nextLong(-2_000_000_000_000_000L, 4_000_000_000_000_000L)
          : t.kind() == ColumnType.Kind.INT ? r.nextInt() : r.nextLong();
    }
    return Sequence.of(p);
  }

  private static Object nonNull(ColumnType type, Random r) {
    return switch (type.kind()) {
      case LONG -> r.nextBoolean() ? r.nextLong() : (long) r.nextInt(100);
      case INT -> r.nextInt();
      case DOUBLE -> switch (r.nextInt(6)) {
        case 0 -> Double.NaN;
        case 1 -> -0.0;
        case 2 -> r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.MIN_VALUE;
        default -> (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
      };
      // at the column's scale, as decoded events carry them (trailing zeros kept: 12.5000)
      case DECIMAL -> new BigDecimal(BigInteger.valueOf(r.nextLong() % (long) Math.pow(10, Math.min(type.precision(),
          18))), type.scale());
      case BOOLEAN -> r.nextBoolean();
      case STRING -> text(r);
      case DATE -> LocalDate.ofEpochDay(r.nextInt(-500_000, 2_500_000));
      // whole seconds, millis and micros: Instant.toString prints 0, 3 or 6 fraction digits
      case TIMESTAMP -> {
        long micros = r.nextLong(-62_000_000_000_000_000L, 250_000_000_000_000_000L);
        long unit = r.nextBoolean() ? 1 : r.nextBoolean() ? 1_000 : 1_000_000;
        yield Instant.EPOCH.plus(micros - micros % unit, java.time.temporal.ChronoUnit.MICROS);
      }
    };
  }

  /** Text with quotes, backslashes, control characters, accents, CJK and characters outside the BMP. */
  private static String text(Random r) {
    String[] pieces = {"a", "Zürich", "北京", "😀", "\"", "\\", "\n", "\t", "\u0000", "\u001f", "\u2028", "é", " ", "/"};
    StringBuilder b = new StringBuilder();
    int n = r.nextInt(12);
    for (int i = 0; i < n; i++) {
      b.append(pieces[r.nextInt(pieces.length)]);
    }
    return b.toString();
  }
}
