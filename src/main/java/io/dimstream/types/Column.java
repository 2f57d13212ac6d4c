package io.dimstream.types;

/** A named, typed column of a dimension. */
public record Column(String name, ColumnType type) {}
