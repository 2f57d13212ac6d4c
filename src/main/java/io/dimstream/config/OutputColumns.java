package io.dimstream.config;

/** Names of the three SCD2 columns every version row carries. Defaults: valid_from, valid_to, is_current. */
public record OutputColumns(String validFrom, String validTo, String isCurrent) {
  public static final OutputColumns DEFAULT = new OutputColumns("valid_from", "valid_to", "is_current");
}
