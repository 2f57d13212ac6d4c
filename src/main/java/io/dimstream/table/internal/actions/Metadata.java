package io.dimstream.table.internal.actions;

import java.util.List;
import java.util.Map;

/** The {@code metaData} action: table id, schema, partition columns and configuration (table properties). */
public record Metadata(String id, String name, String schemaString, List<String> partitionColumns,
    Map<String, String> configuration, long createdTime) implements Action {
  public Metadata {
    partitionColumns = List.copyOf(partitionColumns);
    configuration = Map.copyOf(configuration);
  }
}
