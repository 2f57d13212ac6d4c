package io.dimstream.model;

/**
 * A version's identity: its business key and its full opening sequence ({@code valid_from}, every part). Every
 * later change to the version (a close-out, a type-1 update, a correction or a retraction) carries the same one;
 * it is also the versions topic's record key.
 */
public record VersionId(BusinessKey key, Sequence validFrom) {

  public static VersionId of(Version version) {
    return new VersionId(version.key(), version.validFrom());
  }

  public static VersionId of(VersionChange change) {
    return new VersionId(change.key(), change.validFrom());
  }

  @Override
  public String toString() {
    return key + "@" + validFrom;
  }
}
