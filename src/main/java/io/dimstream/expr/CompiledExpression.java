package io.dimstream.expr;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.dimstream.model.ChangeEvent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One checked expression of the spec, planned once, ready to evaluate; thread-safe, so every stream task shares it.
 * An expression that reads nothing but a few event columns remembers its result (or its failure) for up to
 * {@value #MEMO_ENTRIES} combinations of their values: categorical columns (a tier, a status, a country) then cost a
 * hash lookup per event instead of an interpretation. Columns of many values fill the memo, after which the
 * expression is just interpreted.
 */
final class CompiledExpression {
  static final int MEMO_ENTRIES = 4096;
  /** Reads at most this many columns to be remembered: a longer key costs more than it saves. */
  private static final int MEMO_COLUMNS = 4;

  private final String field;
  private final String text;
  private final CelRuntime.Program program;
  private final ExpressionReads reads;
  /** Values of {@code reads.eventColumns()} ({@link #key}) to result or {@link Failed}; null when not memoized. */
  private final Map<Object, Object> memo;

  private record Failed(CelEvaluationException cause) {}

  CompiledExpression(String field, String text, CelRuntime.Program program, ExpressionReads reads) {
    this.field = field;
    this.text = text;
    this.program = program;
    this.reads = reads;
    boolean memoized = reads.eventColumnsOnly() && reads.eventColumns().size() <= MEMO_COLUMNS;
    this.memo = memoized ? new ConcurrentHashMap<>() : null;
  }

  String field() {
    return field;
  }

  String text() {
    return text;
  }

  ExpressionReads reads() {
    return reads;
  }

  /**
   * @param variables {@code event} (an {@link Bindings.EventFields}) and, for a derivation, {@code prev}
   * @throws ExpressionException when the expression fails on this event (no overload for a null, overflow, ...)
   */
  Object eval(Map<String, Object> variables, Bindings.EventFields event, ChangeEvent decoded) {
    if (memo == null) {
      return evalNow(variables, decoded);
    }
    Object key = key(event);
    Object known = memo.get(key);
    if (known == null) {
      try {
        known = program.eval(variables);
      } catch (CelEvaluationException e) {
        known = new Failed(e);
      }
      if (memo.size() < MEMO_ENTRIES) {
        memo.putIfAbsent(key, known);
      }
    }
    if (known instanceof Failed f) {
      throw ExpressionErrors.failed(field, text, decoded, f.cause());
    }
    return known;
  }

  private Object evalNow(Map<String, Object> variables, ChangeEvent decoded) {
    try {
      return program.eval(variables);
    } catch (CelEvaluationException e) {
      throw ExpressionErrors.failed(field, text, decoded, e);
    }
  }

  /** The values the result depends on: one column's value itself (never null: CEL's null is a value), else a list. */
  private Object key(Bindings.EventFields event) {
    List<String> columns = reads.eventColumns();
    if (columns.size() == 1) {
      return event.get(columns.get(0));
    }
    Object[] values = new Object[columns.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = event.get(columns.get(i));
    }
    return Arrays.asList(values);
  }
}
