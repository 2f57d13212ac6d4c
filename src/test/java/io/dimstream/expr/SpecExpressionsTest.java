package io.dimstream.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.SpecException;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SpecExpressionsTest {
  static final Path EXAMPLE = Path.of("examples/orders-derived.yaml");

  @TempDir
  Path dir;

  // attributes of the example, in order: amount, status, source, amount_x2, lifetime_spend
  static ChangeEvent order(long seq, Double amount, String status, String source) {
    return ChangeEvent.upsert(BusinessKey.of(7L), Sequence.of(seq), Arrays.asList(amount, status, source, null, null));
  }

  static Version open(String lifetimeSpend) {
    return new Version(BusinessKey.of(7L), Sequence.of(1), null,
        Arrays.asList(1.0, "new", "shop", 2.0, new BigDecimal(lifetimeSpend)));
  }

  @Test
  void shouldDeriveFromTheEventAndTheVersionOpenBeforeIt() {
    SpecExpressions e = SpecExpressions.compile(DimensionSpecLoader.load(EXAMPLE));

    ChangeEvent first = e.derive(null, order(10, 12.5, "new", "shop"));
    ChangeEvent next = e.derive(open("100.25"), order(20, 0.5, "paid", "shop"));

    assertThat(first.attributes()).containsExactly(12.5, "new", "shop", 25.0, new BigDecimal("12.50"));
    assertThat(next.attributes()).containsExactly(0.5, "paid", "shop", 1.0, new BigDecimal("100.75"));
  }

  @Test
  void shouldSkipOrTurnIntoADeleteByTheConditions() {
    SpecExpressions e = SpecExpressions.compile(DimensionSpecLoader.load(EXAMPLE));

    assertThat(e.admit(order(1, 1.0, "new", "test"))).isEmpty();
    assertThat(e.admit(order(2, null, "deleted", "shop")))
        .contains(ChangeEvent.delete(BusinessKey.of(7L), Sequence.of(2)));
    assertThat(e.admit(order(3, 1.0, "new", null))).contains(order(3, 1.0, "new", null));
  }

  @Test
  void shouldFailOnOneEventWhoseAmountIsNullNamingTheFieldAndTheKey() {
    SpecExpressions e = SpecExpressions.compile(DimensionSpecLoader.load(EXAMPLE));

    assertThatThrownBy(() -> e.derive(null, order(10, null, "new", "shop")))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("derive.amount_x2")
        .hasMessageContaining("event.amount * 2.0")
        .hasMessageContaining("key 7 at sequence 10")
        .hasMessageContaining("Fix:");
  }

  @Test
  void shouldFailWhenADerivedValueDoesNotFitItsColumn() throws IOException {
    SpecExpressions e = SpecExpressions.compile(load(example().replace("decimal(14,2)", "decimal(4,2)")));

    assertThatThrownBy(() -> e.derive(open("99.00"), order(10, 1.0, "new", "shop")))
        .isInstanceOf(ExpressionException.class)
        .hasMessageContaining("derive.lifetime_spend")
        .hasMessageContaining("100.00 has more than 4 digits");
  }

  @Test
  void shouldShowTheExampleVerbatimInTheReadme() throws IOException {
    assertThat(Files.readString(Path.of("docs/reference/spec.md"))).contains("```yaml\n" + example() + "```");
  }

  @Test
  void shouldLeaveASpecWithoutExpressionsAlone() {
    SpecExpressions e = SpecExpressions.compile(DimensionSpecLoader.load(Path.of("examples/customers.yaml")));

    assertThat(e.isEmpty()).isTrue();
    assertThat(e.derivation()).isSameAs(io.dimstream.history.Derivation.NONE);
  }

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        bad("a parse error", "skip_when: \"event.source == 'test'\"", "skip_when: \"event.source ==\"",
            "field 'skip_when'", "does not parse at line 1, column 16"),
        bad("an unknown column", "\"event.amount * 2.0\"", "\"event.amout * 2.0\"",
            "field 'derive.amount_x2'", "does not type-check at line 1, column 6: undefined field 'amout'"),
        bad("int times double", "\"event.amount * 2.0\"", "\"event.amount * 2\"",
            "field 'derive.amount_x2'", "no matching overload for '_*_' applied to '(double, int)'"),
        bad("a result of another type", "\"event.amount * 2.0\"", "\"event.status\"",
            "field 'derive.amount_x2'", "gives string, but column 'amount_x2' is double, which takes double"),
        bad("a condition that is not a bool", "\"event.status == 'deleted'\"", "\"event.status\"",
            "field 'delete.when'", "a condition must give a bool"),
        bad("prev in a condition", "\"event.source == 'test'\"", "\"prev == null\"",
            "field 'skip_when'", "undeclared reference to 'prev'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSpecs")
  void shouldRefuseAtStartWithTheFileTheFieldAndThePosition(String yaml, String field, String problem)
      throws IOException {
    DimensionSpec spec = load(yaml);

    assertThatThrownBy(() -> SpecExpressions.compile(spec))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(dir.resolve("orders.yaml") + ": " + field)
        .hasMessageContaining(problem)
        .hasMessageContaining("Fix: ");
  }

  @Test
  void shouldRefuseToDeriveAKeyColumnWhenTheSpecLoads() throws IOException {
    String yaml = example().replace("derive:\n", "derive:\n  customer_id: \"event.customer_id + 1\"\n");

    assertThatThrownBy(() -> load(yaml))
        .isInstanceOf(SpecException.class)
        .hasMessageContaining("field 'derive.customer_id': 'customer_id' is not an attribute column");
  }

  private static Arguments bad(String name, String from, String to, String field, String problem) {
    try {
      return Arguments.of(Named.of(name, example().replace(from, to)), field, problem);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String example() throws IOException {
    return Files.readString(EXAMPLE);
  }

  private DimensionSpec load(String yaml) throws IOException {
    Path file = dir.resolve("orders.yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }
}
