package io.dimstream.config;

/** A named, typed column of a dimension. */
public record Column(String name, ColumnType type) {}
