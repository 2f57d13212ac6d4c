package io.dimstream.spec;

/**
 * What the table keeps per key: its full history ({@code history: scd2}, the default) or only its latest state by
 * sequence ({@code history: scd1}, one row per key).
 *
 * @param softDelete with {@code scd1} only: a delete keeps the key's row, closed ({@code valid_to} = the delete's
 *                   sequence, {@code is_current = false}), instead of removing it
 */
public record HistoryMode(Kind kind, boolean softDelete) {
  /** The default: SCD type 2, full history. */
  public static final HistoryMode SCD2 = new HistoryMode(Kind.SCD2, false);

  /** The kinds of table, named as in the spec's {@code history} field. */
  public enum Kind {
    SCD2,
    SCD1;

    /** The name in the spec, {@code scd2} or {@code scd1}. */
    public String specName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public HistoryMode {
    if (softDelete && kind != Kind.SCD1) {
      throw new IllegalArgumentException("soft_delete applies to history: scd1 only");
    }
  }

  /** One row per key, its latest state. */
  public boolean isScd1() {
    return kind == Kind.SCD1;
  }

  /** Whether a delete removes the key's row (scd1 without soft_delete). */
  public boolean hardDelete() {
    return kind == Kind.SCD1 && !softDelete;
  }
}
