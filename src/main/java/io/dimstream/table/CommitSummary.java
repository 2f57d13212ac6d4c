package io.dimstream.table;

import java.time.Instant;
import java.util.Map;

/**
 * One entry of the table's history, from the commit's {@code commitInfo} action (what {@code DESCRIBE HISTORY}
 * shows in Spark).
 *
 * @param timestamp           the commit time (the commit file's modification time, as Delta uses for time travel)
 * @param operation           e.g. {@code CREATE TABLE}, {@code MERGE}, {@code WRITE}, {@code OPTIMIZE}; empty when
 *                            the commit has no commitInfo
 * @param operationMetrics    Delta's metric names ({@code numTargetRowsInserted}, ...) to their values as text
 */
public record CommitSummary(
    long version,
    Instant timestamp,
    String operation,
    Map<String, String> operationParameters,
    Map<String, String> operationMetrics) {
  public CommitSummary {
    operationParameters = Map.copyOf(operationParameters);
    operationMetrics = Map.copyOf(operationMetrics);
  }
}
