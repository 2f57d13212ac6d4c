package io.dimstream.query;

import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** An in-memory {@link VersionSource} that records the hints it was given. */
public class ListVersionSource implements VersionSource {
  private final DimensionSpec spec;
  private final List<Version> versions;
  private final long tableVersion;
  final List<ScanHints> hints = new ArrayList<>();

  public ListVersionSource(DimensionSpec spec, List<Version> versions) {
    this(spec, versions, -1);
  }

  public ListVersionSource(DimensionSpec spec, List<Version> versions, long tableVersion) {
    this.spec = spec;
    this.versions = List.copyOf(versions);
    this.tableVersion = tableVersion;
  }

  @Override
  public DimensionSpec spec() {
    return spec;
  }

  @Override
  public long tableVersion() {
    return tableVersion;
  }

  @Override
  public synchronized Stream<Version> scan(ScanHints h) {
    hints.add(h);
    return versions.stream();
  }
}
