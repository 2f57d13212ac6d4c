package io.dimstream.table;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The {@code commitInfo} action, kept as JSON: its fields are free-form provenance. */
record CommitInfo(ObjectNode json) implements Action {
  /** Our own field: how many actions follow the commitInfo line, to detect a truncated commit file. */
  static final String ACTION_COUNT = "dimstreamActionCount";
}
