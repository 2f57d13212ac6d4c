package io.dimstream.table.internal.actions;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The {@code commitInfo} action: provenance of one commit, as {@code DESCRIBE HISTORY} shows it.
 *
 * @param operationParameters values are {@code String}, {@code Boolean} or {@code Long}, written as JSON of that type
 * @param readVersion         the version the commit was planned on; null when not recorded
 * @param isolationLevel      null when not recorded
 * @param isBlindAppend       null when not recorded
 * @param actionCount         our own field: how many actions follow the commitInfo line, to detect a truncated
 *                            commit file; -1 when absent (commits of other engines)
 */
public record CommitInfo(
    long timestamp,
    String operation,
    Map<String, Object> operationParameters,
    Map<String, String> operationMetrics,
    Long readVersion,
    String isolationLevel,
    Boolean isBlindAppend,
    String engineInfo,
    String txnId,
    long actionCount) implements Action {
  public static final String ENGINE_INFO = "dimstream/0.1";

  public CommitInfo {
    operationParameters = Collections.unmodifiableMap(new LinkedHashMap<>(operationParameters));
    operationMetrics = Collections.unmodifiableMap(new LinkedHashMap<>(operationMetrics));
  }

  /** A commitInfo written by dimstream: this engine, a fresh txnId, no isolation level. */
  public static CommitInfo of(long timestamp, String operation, Map<String, ?> parameters,
      Map<String, String> metrics, Long readVersion, long actionCount) {
    return new CommitInfo(timestamp, operation, new LinkedHashMap<>(parameters), metrics, readVersion, null, null,
        ENGINE_INFO, UUID.randomUUID().toString(), actionCount);
  }

  /** This commitInfo marked as a serializable, non-blind-append commit (what a MERGE records). */
  public CommitInfo serializable() {
    return new CommitInfo(timestamp, operation, operationParameters, operationMetrics, readVersion, "Serializable",
        false, engineInfo, txnId, actionCount);
  }

  /** The parameters as text, the form {@code DESCRIBE HISTORY} shows. */
  public Map<String, String> parametersAsText() {
    Map<String, String> out = new LinkedHashMap<>();
    operationParameters.forEach((k, v) -> out.put(k, String.valueOf(v)));
    return out;
  }
}
