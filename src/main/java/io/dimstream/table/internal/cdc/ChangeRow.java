package io.dimstream.table.internal.cdc;

import io.dimstream.model.Version;

/** One row of a commit's change data: a version row and what happened to it. */
public record ChangeRow(Version version, ChangeType type) {}
