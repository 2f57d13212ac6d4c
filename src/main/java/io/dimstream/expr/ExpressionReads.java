package io.dimstream.expr;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.navigation.CelNavigableExpr;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What one checked expression reads: the {@code event} columns it selects, whether it uses {@code event} as a whole
 * and whether it reads {@code prev}. An expression that reads a few event columns and nothing else gives the same
 * result for the same values of those columns (CEL has no side effects, no clock, no I/O).
 *
 * @param eventColumns the columns read as {@code event.<column>}, sorted
 */
record ExpressionReads(List<String> eventColumns, boolean wholeEvent, boolean prev) {

  static ExpressionReads of(CelAbstractSyntaxTree ast) {
    TreeSet<String> columns = new TreeSet<>();
    boolean[] whole = {false};
    boolean[] prev = {false};
    CelNavigableAst.fromAst(ast).getRoot().allNodes().forEach(node -> {
      CelExpr e = node.expr();
      switch (e.getKind()) {
        case IDENT -> {
          String name = e.ident().name();
          if (name.equals(Bindings.PREV)) {
            prev[0] = true;
          } else if (name.equals(Bindings.EVENT)) {
            Optional<String> column = selectedColumn(node);
            column.ifPresentOrElse(columns::add, () -> whole[0] = true);
          }
        }
        case COMPREHENSION -> {
          // a macro's own variable named as ours would shadow it: then nothing is known about what is read
          var c = e.comprehension();
          if (shadows(c.iterVar()) || shadows(c.iterVar2()) || shadows(c.accuVar())) {
            whole[0] = true;
            prev[0] = true;
          }
        }
        default -> { }
      }
    });
    return new ExpressionReads(List.copyOf(columns), whole[0], prev[0]);
  }

  /** Whether the result depends on nothing but the values of {@link #eventColumns}. */
  boolean eventColumnsOnly() {
    return !wholeEvent && !prev;
  }

  private static Optional<String> selectedColumn(CelNavigableExpr ident) {
    return ident.parent().map(CelNavigableExpr::expr)
        .filter(p -> p.getKind() == CelExpr.ExprKind.Kind.SELECT && p.select().operand().id() == ident.expr().id()
            && !p.select().testOnly())
        .map(p -> p.select().field());
  }

  private static boolean shadows(String variable) {
    return Bindings.EVENT.equals(variable) || Bindings.PREV.equals(variable);
  }
}
