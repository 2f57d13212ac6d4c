package io.dimstream.expr;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.dimstream.model.ChangeEvent;
import java.util.Map;

/** One checked expression of the spec, ready to evaluate; thread-safe, so every stream task shares it. */
record CompiledExpression(String field, String text, CelRuntime.Program program) {

  /** @throws ExpressionException when the expression fails on this event (no overload for a null, overflow, ...) */
  Object eval(Map<String, ?> variables, ChangeEvent event) {
    try {
      return program.eval(variables);
    } catch (CelEvaluationException e) {
      throw ExpressionErrors.failed(field, text, event, e);
    }
  }
}
