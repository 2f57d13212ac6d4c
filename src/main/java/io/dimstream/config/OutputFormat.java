package io.dimstream.config;

/** How version records on the versions topic are encoded. */
public enum OutputFormat { JSON, AVRO }
