package io.dimstream.spec;

/**
 * Names of the SCD2 columns every version row carries. Defaults: valid_from, valid_to, is_current, and no
 * version id.
 *
 * @param versionId name of the column holding each version's deterministic 64-bit id (see
 *                  {@code io.dimstream.model.SurrogateIds}); null when the spec asks for none
 */
public record OutputColumns(String validFrom, String validTo, String isCurrent, String versionId) {
  public static final OutputColumns DEFAULT = new OutputColumns("valid_from", "valid_to", "is_current", null);

  public OutputColumns(String validFrom, String validTo, String isCurrent) {
    this(validFrom, validTo, isCurrent, null);
  }

  public boolean hasVersionId() {
    return versionId != null;
  }
}
