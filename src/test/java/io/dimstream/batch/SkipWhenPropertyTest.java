package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.topology.TopologyRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@code skip_when} drops an event as if it had never been sent: for upserts and deletes in any arrival order, the
 * history the spec with the condition makes of a change file equals the reference fold (with the same
 * {@code derive}, without the condition) of the file with the matching records removed by hand, in backfill and
 * in the topology that {@code run}, {@code replay} and the test kit drive.
 */
class SkipWhenPropertyTest {
  /** One record of the customers example: a null city or tier is left out of the record. */
  record Rec(long key, int minute, String city, String tier, boolean delete) {
    String json() {
      return "{\"customer_id\":" + key + (city == null ? "" : ",\"city\":\"" + city + "\"")
          + (tier == null ? "" : ",\"tier\":\"" + tier + "\"") + ",\"updated_at\":\"2026-01-01T00:"
          + String.format("%02d", minute) + ":00Z\",\"op\":\"" + (delete ? "d" : "u") + "\"}";
    }

    /** The condition, written out by hand: what a user filters the file by. */
    boolean matches() {
      return "Lagos".equals(city) && "bronze".equals(tier);
    }
  }

  static final Gen<Rec> RECORDS = integers().between(1, 3).zip(integers().between(0, 9),
      Generate.pick(java.util.Arrays.asList("Lagos", "Oslo", null)),
      Generate.pick(java.util.Arrays.asList("bronze", "gold", null)), integers().between(0, 3),
      (key, minute, city, tier, op) -> new Rec(key, minute, city, tier, op == 0));
  static final Gen<List<Rec>> FILES = lists().of(RECORDS).ofSizeBetween(0, 14);

  @TempDir
  static Path dir;
  static DimensionSpec withCondition;
  static DimensionSpec withoutCondition;

  @BeforeAll
  static void specs() throws IOException {
    withCondition = DeleteConditionsTest.spec(dir);
    Path plain = dir.resolve("plain.yaml");
    String yaml = Files.readString(dir.resolve("customers.yaml"));
    Files.writeString(plain, yaml.substring(0, yaml.indexOf("skip_when:")));
    withoutCondition = DimensionSpecLoader.load(plain);
    assertThat(withoutCondition.expressions().skipWhen()).isNull();
    assertThat(withoutCondition.expressions().derive()).containsKey("tier_rank");
  }

  @Test
  void backfillOfTheFileEqualsTheReferenceFoldOfTheFilteredFile() {
    Backfill backfill = new Backfill(withCondition);
    qt().withExamples(300).forAll(FILES).checkAssert(file -> {
      List<String> sent = file.stream().map(Rec::json).toList();
      try {
        Backfill.Result r = backfill.build(DeleteConditionsTest.inputs(sent), "changes.jsonl",
            Files.createTempFile(dir, "dlq", ".jsonl"));
        assertThat(r.versions()).isEqualTo(expected(file));
        assertThat(r.rejected()).isZero();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  @Test
  void theTopologyGivesTheReferenceFoldOfTheFilteredFile() {
    qt().withExamples(40).forAll(FILES).checkAssert(file -> {
      List<String> sent = file.stream().map(Rec::json).toList();
      List<TopologyRunner.Rejection> rejected = new ArrayList<>();
      TopologyRunner.Replay r = TopologyRunner.replay(withCondition, DeleteConditionsTest.bytes(sent),
          rejected::add);
      assertThat(r.history()).isEqualTo(expected(file));
      assertThat(rejected).isEmpty();
    });
  }

  /**
   * Where {@code derive} reads the event alone, backfill judges conditions, lateness and {@code derive} failures
   * before one fold per key; the engine's history and dead letters (reason and detail, in arrival order) are its
   * reference. Here {@code derive} fails on a missing tier and the horizon rejects events over 3 minutes late.
   */
  @Test
  void backfillRejectsWhatTheEngineRejectsWhenDeriveReadsTheEventAlone() throws IOException {
    Path file = dir.resolve("failing.yaml");
    Files.writeString(file, Files.readString(dir.resolve("customers.yaml"))
        .replaceFirst("  tier_rank: \".*\"\n", "  tier_rank: \"event.tier.size() > 4 ? 2 : 1\"\n")
        + "lateness_horizon: 3m\n");
    DimensionSpec spec = DimensionSpecLoader.load(file);
    assertThat(SpecExpressions.compile(spec).derivesFromPrev()).isFalse();
    Backfill backfill = new Backfill(spec);
    qt().withExamples(30).forAll(FILES).checkAssert(recs -> {
      List<String> sent = recs.stream().map(Rec::json).toList();
      List<TopologyRunner.Rejection> engineRejected = new ArrayList<>();
      TopologyRunner.Replay engine = TopologyRunner.replay(spec, DeleteConditionsTest.bytes(sent),
          engineRejected::add);
      try {
        Path dlq = Files.createTempFile(dir, "dlq", ".jsonl");
        Backfill.Result r = backfill.build(DeleteConditionsTest.inputs(sent), "changes.jsonl", dlq);
        assertThat(r.versions()).isEqualTo(engine.history());
        List<String> dead = new ArrayList<>();
        for (String line : Files.readAllLines(dlq, StandardCharsets.UTF_8)) {
          var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
          dead.add(node.get("reason").asText() + " " + node.get("detail").asText() + " " + node.get("record").asText());
        }
        assertThat(dead).containsExactlyInAnyOrderElementsOf(engineRejected.stream()
            .map(x -> x.reason() + " " + x.detail() + " " + x.valueText()).toList());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** The reference fold of the records a user keeps after removing those the condition matches. */
  static List<Version> expected(List<Rec> file) {
    ChangeDecoder decoder = ChangeDecoder.forSpec(withoutCondition);
    List<ChangeEvent> kept = new ArrayList<>();
    for (Rec rec : file) {
      if (!rec.matches()) {
        Decoded d = decoder.decode(null, rec.json().getBytes(StandardCharsets.UTF_8), 0);
        kept.add(((Decoded.Accepted) d).event());
      }
    }
    return Scd2Fold.fold(withoutCondition.trackedMask(), SpecExpressions.compile(withoutCondition).derivation(),
        kept);
  }
}
