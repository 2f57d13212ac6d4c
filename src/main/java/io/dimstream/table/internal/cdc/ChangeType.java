package io.dimstream.table.internal.cdc;

/** The values of the {@code _change_type} column, as Delta's change data feed names them. */
public enum ChangeType {
  /** A row the commit added that no row of the table had the identity of before. */
  INSERT("insert"),
  /** A row of the table, as it was, that the commit replaced with another row of the same identity. */
  UPDATE_PREIMAGE("update_preimage"),
  /** The row that replaced an {@link #UPDATE_PREIMAGE} row. */
  UPDATE_POSTIMAGE("update_postimage"),
  /** A row of the table the commit removed, with no row of its identity after it. */
  DELETE("delete");

  private final String value;

  ChangeType(String value) {
    this.value = value;
  }

  /** The text in the {@code _change_type} column. */
  public String value() {
    return value;
  }
}
