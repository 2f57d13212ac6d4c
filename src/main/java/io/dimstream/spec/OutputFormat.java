package io.dimstream.spec;

/** How version records on the versions topic are encoded. */
public enum OutputFormat { JSON, AVRO }
