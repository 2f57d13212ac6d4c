package io.dimstream.spark;

import java.io.Serializable;
import java.util.List;

/** What one bucket's task did: its data files ({@code add} actions), counts and dead letters, for the driver. */
record BucketResult(List<String> files, long records, long versions, long keptEvents, List<DeadLetterAt> deadLetters)
    implements Serializable {}
