package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.change.RejectReason;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.topology.TopologyRunner;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example spec with expressions ({@code examples/orders-derived.yaml}) through every path: the topology (as
 * {@code run} and the test kit drive it), {@code replay} and {@code backfill} give the same hand-written history.
 */
public class ExpressionPathsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final DimensionSpec SPEC = DimensionSpecLoader.load(Path.of("examples/orders-derived.yaml"));
  public static final String NULL_AMOUNT = order("2026-01-05", null, "new", "shop");

  /** Arrival order: a skipped test event, a late event that re-derives the one after it, a failure, a delete. */
  public static final List<String> EVENTS = List.of(
      order("2026-01-01", 10.0, "new", "shop"),
      order("2026-01-03", 5.0, "new", "shop"),
      order("2026-01-04", 100.0, "new", "test"),
      order("2026-01-02", 10.0, "new", "shop"),
      NULL_AMOUNT,
      order("2026-01-06", 0.0, "deleted", "shop"),
      order("2026-01-07", 1.0, "new", "shop"));

  /**
   * 01-02 equals the open version in every tracked column (status, amount_x2), so it only adds to lifetime_spend
   * in place (20); the 01-03 version, re-derived from it, sums to 25; after the delete the sum starts again.
   */
  public static final List<Version> EXPECTED = List.of(
      version("2026-01-01", "2026-01-03", 10.0, "new", 20.0, "20.00"),
      version("2026-01-03", "2026-01-06", 5.0, "new", 10.0, "25.00"),
      version("2026-01-07", null, 1.0, "new", 2.0, "1.00"));

  @TempDir
  Path dir;

  @Test
  void shouldDeriveSkipAndDeleteInTheTopologyAndSendAFailingEventToTheDlq() {
    try (TopologyRunner runner = TopologyRunner.builder(SPEC).stateDir(dir).build()) {
      runner.send(EVENTS.toArray(String[]::new));

      assertThat(runner.history()).containsExactlyElementsOf(EXPECTED);
      List<TopologyRunner.Rejection> rejected = runner.rejections();
      assertThat(rejected).extracting(TopologyRunner.Rejection::reason).containsExactly(RejectReason.EXPRESSION_ERROR);
      assertThat(rejected.get(0).valueText()).isEqualTo(NULL_AMOUNT);
      assertThat(rejected.get(0).detail()).contains("derive.amount_x2", "No matching overload");
    }
  }

  @Test
  void shouldShipTheEventsAsExamplesOrdersChangesJsonl() throws Exception {
    assertThat(Files.readAllLines(Path.of("examples/orders-changes.jsonl"), StandardCharsets.UTF_8))
        .containsExactlyElementsOf(EVENTS);
  }

  @Test
  void shouldGiveTheSameHistoryInReplay() {
    List<TopologyRunner.Rejection> rejected = new ArrayList<>();
    TopologyRunner.Replay r = TopologyRunner.replay(SPEC,
        EVENTS.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).iterator(), rejected::add);

    assertThat(r.history()).containsExactlyElementsOf(EXPECTED);
    assertThat(rejected).extracting(TopologyRunner.Rejection::reason).containsExactly(RejectReason.EXPRESSION_ERROR);
  }

  @Test
  void shouldGiveTheSameHistoryInBackfill() throws Exception {
    List<Backfill.Input> inputs = new ArrayList<>();
    for (int i = 0; i < EVENTS.size(); i++) {
      inputs.add(new Backfill.Input(i + 1, EVENTS.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    Path dlq = dir.resolve("dlq.jsonl");

    Backfill.Result r = new Backfill(SPEC).build(inputs.iterator(), "orders.jsonl", dlq);

    assertThat(r.versions()).containsExactlyElementsOf(EXPECTED);
    List<String> dead = Files.readAllLines(dlq, StandardCharsets.UTF_8);
    assertThat(dead).hasSize(1);
    JsonNode d = JSON.readTree(dead.get(0));
    assertThat(d.get("reason").asText()).isEqualTo(RejectReason.EXPRESSION_ERROR);
    assertThat(d.get("record").asText()).isEqualTo(NULL_AMOUNT);
  }

  static String order(String day, Double amount, String status, String source) {
    return "{\"customer_id\": 1, \"amount\": " + amount + ", \"status\": \"" + status + "\", \"source\": \"" + source
        + "\", \"updated_at\": \"" + day + "T00:00:00Z\"}";
  }

  static Version version(String from, String to, double amount, String status, double x2, String lifetime) {
    return new Version(BusinessKey.of(1L), micros(from), to == null ? null : micros(to),
        Arrays.asList(amount, status, "shop", x2, new BigDecimal(lifetime)));
  }

  static Sequence micros(String day) {
    return Sequence.of(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(day + "T00:00:00Z")));
  }
}
