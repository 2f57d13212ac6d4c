package io.dimstream.spark;

import java.io.Serializable;
import java.util.List;

/** What one bucket's task did: its data files ({@code add} actions), counts and dead letters, for the driver. */
final class BucketResult implements Serializable {
  private static final long serialVersionUID = 1L;

  final List<String> files;
  final long versions;
  final long keptEvents;
  final List<DeadLetterAt> deadLetters;

  BucketResult(List<String> files, long versions, long keptEvents, List<DeadLetterAt> deadLetters) {
    this.files = files;
    this.versions = versions;
    this.keptEvents = keptEvents;
    this.deadLetters = deadLetters;
  }
}
