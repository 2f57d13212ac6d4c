package io.dimstream.query;

import java.time.Instant;
import java.util.Map;

/**
 * One entry of a table's commit history as the query side shows it.
 *
 * @param operation        e.g. {@code WRITE}, {@code MERGE}, {@code OPTIMIZE}; empty when unknown
 * @param operationMetrics Delta metric names ({@code numTargetRowsInserted}, ...) to their values as text
 */
public record TableCommit(long version, Instant timestamp, String operation, Map<String, String> operationMetrics) {
  public TableCommit {
    operationMetrics = Map.copyOf(operationMetrics);
  }
}
