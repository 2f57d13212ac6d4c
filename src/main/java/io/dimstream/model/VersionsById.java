package io.dimstream.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The versions a consumer of version changes holds: one per {@link VersionId}, where an upsert inserts or replaces
 * the version and a retraction removes it (a retraction of an absent version does nothing). Kept in the order
 * identities were first inserted. Not thread-safe.
 */
public final class VersionsById {
  private final Map<VersionId, Version> versions = new LinkedHashMap<>();

  /** Applies one change. */
  public void apply(VersionChange change) {
    if (change instanceof VersionChange.Upsert u) {
      versions.put(VersionId.of(change), u.version());
    } else {
      versions.remove(VersionId.of(change));
    }
  }

  /** Applies the changes in list order: for one identity, the last change wins. */
  public void apply(Collection<? extends VersionChange> changes) {
    for (VersionChange c : changes) {
      apply(c);
    }
  }

  /** Inserts or replaces a version as it is. */
  public void put(Version version) {
    versions.put(VersionId.of(version), version);
  }

  /** The version with this identity, if held. */
  public Optional<Version> get(VersionId id) {
    return Optional.ofNullable(versions.get(id));
  }

  /** Removes and returns the version with this identity, if held. */
  public Optional<Version> remove(VersionId id) {
    return Optional.ofNullable(versions.remove(id));
  }

  public boolean contains(VersionId id) {
    return versions.containsKey(id);
  }

  public int size() {
    return versions.size();
  }

  public boolean isEmpty() {
    return versions.isEmpty();
  }

  /** The identities held, in first-insertion order. */
  public List<VersionId> ids() {
    return List.copyOf(versions.keySet());
  }

  /** Every version held, sorted by key then {@code valid_from} ({@link BusinessKeys#VERSION_ORDER}). */
  public List<Version> sorted() {
    List<Version> out = new ArrayList<>(versions.values());
    out.sort(BusinessKeys.VERSION_ORDER);
    return out;
  }

  public void clear() {
    versions.clear();
  }
}
