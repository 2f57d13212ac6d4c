package io.dimstream.expr;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.optimizer.CelOptimizationException;
import dev.cel.optimizer.CelOptimizer;
import dev.cel.optimizer.CelOptimizerFactory;
import dev.cel.optimizer.optimizers.ConstantFoldingOptimizer;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.dimstream.history.Derivation;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Version;
import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SpecException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The compiled expressions of one spec: {@code derive} (a {@link Derivation} the fold calls with the version open
 * before each upsert), {@code delete.when} and {@code skip_when} (conditions on the event alone, applied before the
 * event reaches history). Compiled and type-checked once, by {@link #compile}; immutable and thread-safe.
 */
public final class SpecExpressions implements Derivation {
  /** Bounds the cost of one evaluation: CEL has no loops but macros over lists; this caps their iterations. */
  private static final int MAX_ITERATIONS = 10_000;

  private final Bindings bindings;
  private final List<Derived> derived;
  private final CompiledExpression deleteWhen;
  private final CompiledExpression skipWhen;
  /** Whether some {@code derive} reads {@code prev}; when none does, {@code prev} is never built. */
  private final boolean derivesFromPrev;

  private record Derived(int position, CompiledExpression expression) {}

  /** A spec's expressions when it has none: admits every event unchanged and derives nothing. */
  private static final SpecExpressions NONE = new SpecExpressions(null, List.of(), null, null);

  private SpecExpressions(Bindings bindings, List<Derived> derived, CompiledExpression deleteWhen,
      CompiledExpression skipWhen) {
    this.bindings = bindings;
    this.derived = List.copyOf(derived);
    this.deleteWhen = deleteWhen;
    this.skipWhen = skipWhen;
    this.derivesFromPrev = derived.stream().anyMatch(d -> d.expression().reads().prev());
  }

  /**
   * Compiles and type-checks every expression of the spec against its columns.
   *
   * @throws SpecException naming the spec file, the field and the position in the expression of the first error
   */
  public static SpecExpressions compile(DimensionSpec spec) {
    if (spec.expressions().derive().isEmpty() && !(spec.deleteRule() instanceof DeleteRule.When)
        && spec.expressions().skipWhen() == null) {
      return NONE; // nothing to compile: a spec without expressions starts without loading CEL (~0.2 s)
    }
    // A command checks the spec, then its parts compile it again: building CEL's environments costs ~0.3 s of CPU
    // each, so every caller shares the first compilation (immutable and thread-safe).
    SpecExpressions known = COMPILED.get(spec);
    if (known == null) {
      known = compileNow(spec);
      COMPILED.put(spec, known);
    }
    return known;
  }

  /** The specs compiled last, with their expressions; a few, since a process serves one or a few specs. */
  private static final Map<DimensionSpec, SpecExpressions> COMPILED = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<DimensionSpec, SpecExpressions> eldest) {
          return size() > 8;
        }
      });

  private static SpecExpressions compileNow(DimensionSpec spec) {
    Bindings bindings = new Bindings(spec);
    CelOptions options = CelOptions.current().comprehensionMaxIterations(MAX_ITERATIONS).build();
    CelCompiler conditions = CelCompilerFactory.standardCelCompilerBuilder().setOptions(options)
        .setTypeProvider(bindings).addVar(Bindings.EVENT, bindings.eventType()).build();
    CelCompiler derivations = CelCompilerFactory.standardCelCompilerBuilder().setOptions(options)
        .setTypeProvider(bindings).addVar(Bindings.EVENT, bindings.eventType())
        .addVar(Bindings.PREV, bindings.prevType()).build();
    CelRuntime runtime = CelRuntimeFactory.standardCelRuntimeBuilder().setOptions(options).build();
    CelOptimizer conditionFolding = CelOptimizerFactory.standardCelOptimizerBuilder(conditions, runtime)
        .addAstOptimizers(ConstantFoldingOptimizer.getInstance()).build();
    CelOptimizer derivationFolding = CelOptimizerFactory.standardCelOptimizerBuilder(derivations, runtime)
        .addAstOptimizers(ConstantFoldingOptimizer.getInstance()).build();

    List<Derived> derived = new ArrayList<>();
    for (Map.Entry<String, String> d : spec.expressions().derive().entrySet()) {
      int position = bindings.attributePosition(d.getKey());
      String field = "derive." + d.getKey();
      CelType wanted = CelColumns.celType(bindings.attributeType(position));
      CelAbstractSyntaxTree ast = check(spec, derivations, field, d.getValue());
      if (!fits(ast.getResultType(), wanted)) {
        throw ExpressionErrors.wrongResultType(spec, field, d.getValue(), ast.getResultType(),
            ExpressionErrors.wantedFor(d.getKey(), bindings.attributeType(position)));
      }
      derived.add(new Derived(position, program(runtime, derivationFolding, field, d.getValue(), ast)));
    }
    CompiledExpression deleteWhen = spec.deleteRule() instanceof DeleteRule.When w
        ? condition(spec, conditions, runtime, conditionFolding, "delete.when", w.expression()) : null;
    String skip = spec.expressions().skipWhen();
    CompiledExpression skipWhen = skip == null ? null
        : condition(spec, conditions, runtime, conditionFolding, "skip_when", skip);
    return new SpecExpressions(bindings, derived, deleteWhen, skipWhen);
  }

  /** Whether the spec has {@code skip_when} or {@code delete.when}. */
  public boolean hasConditions() {
    return deleteWhen != null || skipWhen != null;
  }

  /**
   * Whether some {@code derive} reads {@code prev} (the version open before the event), so that its value depends
   * on the events folded before it; when none does, an event's derived values depend on the event alone.
   */
  public boolean derivesFromPrev() {
    return derivesFromPrev;
  }

  /** Whether the spec has no expression at all (the engine then runs exactly as without this class). */
  public boolean isEmpty() {
    return derived.isEmpty() && deleteWhen == null && skipWhen == null;
  }

  /** The derivation the fold calls, or {@link Derivation#NONE} when nothing is derived. */
  public Derivation derivation() {
    return derived.isEmpty() ? Derivation.NONE : this;
  }

  /**
   * Applies the conditions: empty when {@code skip_when} holds (the event is dropped as if never sent), a delete
   * of the same key and sequence when {@code delete.when} holds, else the event as it is. A delete is judged by the
   * columns its record carries (the decoder keeps them under {@code skip_when}; a column it does not carry is
   * null) and goes on without them: the fold never reads a delete's attributes.
   *
   * @throws ExpressionException when a condition fails on the event
   */
  public Optional<ChangeEvent> admit(ChangeEvent event) {
    if (skipWhen == null && deleteWhen == null) {
      return Optional.of(bare(event));
    }
    boolean deleteByCondition = deleteWhen != null && !event.delete();
    if (skipWhen == null && !deleteByCondition) {
      return Optional.of(bare(event));
    }
    // one activation for both conditions: a column two conditions read is converted once
    Bindings.EventFields fields = bindings.event(event);
    Map<String, Object> vars = Map.of(Bindings.EVENT, fields);
    if (skipWhen != null && test(skipWhen, vars, fields, event)) {
      return Optional.empty();
    }
    if (event.delete()) {
      return Optional.of(bare(event));
    }
    if (deleteByCondition && test(deleteWhen, vars, fields, event)) {
      return Optional.of(ChangeEvent.delete(event.key(), event.sequence()));
    }
    return Optional.of(event);
  }

  /** A delete without the columns it was judged by; any other event as it is. */
  private static ChangeEvent bare(ChangeEvent event) {
    return event.delete() && !event.attributes().isEmpty() ? ChangeEvent.delete(event.key(), event.sequence())
        : event;
  }

  /** Every {@code derive} expression sees the event as decoded and the version open before it. */
  @Override
  public ChangeEvent derive(Version open, ChangeEvent event) {
    Bindings.EventFields fields = bindings.event(event);
    Map<String, Object> vars = new HashMap<>(4);
    vars.put(Bindings.EVENT, fields);
    if (derivesFromPrev) {
      vars.put(Bindings.PREV, bindings.prev(open));
    }
    List<Object> attributes = new ArrayList<>(event.attributes());
    for (Derived d : derived) {
      Object result = d.expression().eval(vars, fields, event);
      try {
        attributes.set(d.position(), CelColumns.fromCel(bindings.attributeType(d.position()), result));
      } catch (IllegalArgumentException e) {
        throw ExpressionErrors.badValue(d.expression().field(), d.expression().text(), event, e.getMessage());
      }
    }
    return new ChangeEvent(event.key(), event.sequence(), false, attributes);
  }

  private static boolean test(CompiledExpression condition, Map<String, Object> vars, Bindings.EventFields fields,
      ChangeEvent event) {
    Object result = condition.eval(vars, fields, event);
    if (result instanceof Boolean b) {
      return b;
    }
    throw ExpressionErrors.badValue(condition.field(), condition.text(), event, "a condition must give true or"
        + " false, not " + result);
  }

  private static CompiledExpression condition(DimensionSpec spec, CelCompiler compiler, CelRuntime runtime,
      CelOptimizer folding, String field, String text) {
    CelAbstractSyntaxTree ast = check(spec, compiler, field, text);
    if (!fits(ast.getResultType(), SimpleType.BOOL)) {
      throw ExpressionErrors.wrongResultType(spec, field, text, ast.getResultType(), "a condition must give a bool");
    }
    return program(runtime, folding, field, text, ast);
  }

  private static CelAbstractSyntaxTree check(DimensionSpec spec, CelCompiler compiler, String field, String text) {
    try {
      return compiler.compile(text).getAst();
    } catch (CelValidationException e) {
      throw ExpressionErrors.doesNotCompile(spec, field, text, e);
    }
  }

  /**
   * Plans the checked expression once: constant sub-expressions folded first ({@code 60 * 60 * 24}, a list literal
   * of constants), then what it reads recorded (see {@link ExpressionReads}).
   */
  private static CompiledExpression program(CelRuntime runtime, CelOptimizer folding, String field, String text,
      CelAbstractSyntaxTree ast) {
    CelAbstractSyntaxTree folded;
    try {
      folded = folding.optimize(ast);
    } catch (CelOptimizationException e) {
      folded = ast; // an expression the optimizer cannot fold (a constant part fails) fails, or not, per event
    }
    try {
      return new CompiledExpression(field, text, runtime.createProgram(folded), ExpressionReads.of(folded));
    } catch (CelEvaluationException e) {
      throw new IllegalStateException("CEL could not plan a checked expression: " + text, e);
    }
  }

  /** A dyn or null result is checked per event instead, when it is converted to the column's type. */
  private static boolean fits(CelType got, CelType wanted) {
    return got.equals(wanted) || got.kind() == CelKind.DYN || got.kind() == CelKind.NULL_TYPE;
  }
}
