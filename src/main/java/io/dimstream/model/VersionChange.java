package io.dimstream.model;

/** What the engine emits for the versions topic: a version to upsert, or one to retract. */
public sealed interface VersionChange {

  BusinessKey key();

  Sequence validFrom();

  ChangeKind kind();

  /** The identity of the version this change is about. */
  default VersionId id() {
    return new VersionId(key(), validFrom());
  }

  /** Insert or replace the version with identity {@code (key, validFrom)}. */
  record Upsert(Version version, ChangeKind kind) implements VersionChange {
    public Upsert {
      if (kind == ChangeKind.RETRACT) {
        throw new IllegalArgumentException("an upsert cannot be a retraction");
      }
    }

    @Override
    public BusinessKey key() {
      return version.key();
    }

    @Override
    public Sequence validFrom() {
      return version.validFrom();
    }
  }

  /** Delete the version with identity {@code (key, validFrom)}. */
  record Retraction(BusinessKey key, Sequence validFrom) implements VersionChange {
    @Override
    public ChangeKind kind() {
      return ChangeKind.RETRACT;
    }
  }
}
