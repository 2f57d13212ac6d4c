package io.dimstream.expr;

import dev.cel.common.CelIssue;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.CelType;
import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SpecException;
import io.dimstream.types.ColumnType;

/** Builds every error of spec expressions: what happened, why, and how to fix it. */
final class ExpressionErrors {
  private ExpressionErrors() {}

  /** The first issue CEL reports, at its line:column inside the expression (both from 1). */
  static SpecException doesNotCompile(DimensionSpec spec, String field, String text, CelValidationException e) {
    CelIssue issue = e.getErrors().get(0);
    int line = issue.getSourceLocation().getLine();
    int column = issue.getSourceLocation().getColumn() + 1;
    return new SpecException(where(spec) + ": field '" + field + "': the expression \"" + text + "\" does not "
        + (isParseError(issue) ? "parse" : "type-check") + " at line " + line + ", column " + column + ": "
        + issue.getMessage() + ". Fix: use the columns as event.<column> and prev.<attribute> with their declared"
        + " types (CEL does not mix int and double: write 2.0, or int(x)/double(x)); see docs/reference/spec.md, 'Expressions'");
  }

  static SpecException wrongResultType(DimensionSpec spec, String field, String text, CelType got, String wanted) {
    return new SpecException(where(spec) + ": field '" + field + "': the expression \"" + text + "\" gives "
        + got.name() + ", but " + wanted + ". Fix: change the expression, or the type of the column");
  }

  static String wantedFor(String column, ColumnType type) {
    return "column '" + column + "' is " + type + ", which takes " + CelColumns.celType(type).name();
  }

  static ExpressionException failed(String field, String text, ChangeEvent event, Exception cause) {
    return new ExpressionException(field + ": the expression \"" + text + "\" failed on the event of key "
        + event.key() + " at sequence " + event.sequence() + ": " + cause.getMessage()
        + ". Fix: guard the expression against this input (a column may be null: event.x == null ? .. : ..),"
        + " or correct the event and send it again from the dead-letter topic", event.sequence(), cause);
  }

  static ExpressionException badValue(String field, String text, ChangeEvent event, String why) {
    return new ExpressionException(field + ": the expression \"" + text + "\" gave a value that does not fit on"
        + " the event of key " + event.key() + " at sequence " + event.sequence() + ": " + why
        + ". Fix: bound the value in the expression, or widen the column's type", event.sequence(), null);
  }

  private static boolean isParseError(CelIssue issue) {
    String m = issue.getMessage();
    return m.startsWith("mismatched input") || m.startsWith("extraneous input") || m.startsWith("no viable")
        || m.startsWith("token recognition") || m.startsWith("Syntax error");
  }

  private static String where(DimensionSpec spec) {
    return spec.source() == null ? "dimension spec" : spec.source().toString();
  }
}
