package io.dimstream.compactor;

import io.dimstream.model.VersionChange;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each versions-topic record into the version change the table applies, or sends it to the dead-letter topic
 * when the table cannot take it (undecodable, or text that is not valid Unicode): one bad record never stops the
 * table, since a record that stayed on the versions topic would stop the compactor again on every start.
 */
final class VersionIntake {
  private static final Logger LOG = LoggerFactory.getLogger(VersionIntake.class);
  private final VersionRecordDecoder decoder;
  private final VersionDeadLetters deadLetters;
  private final String dlq;
  private final CompactorProgress progress;

  VersionIntake(VersionRecordDecoder decoder, VersionDeadLetters deadLetters, String dlq, CompactorProgress progress) {
    this.decoder = decoder;
    this.deadLetters = deadLetters;
    this.dlq = dlq;
    this.progress = progress;
  }

  /** The record's version change, or null (its offset still counts as read) when there is none to apply. */
  VersionChange applicable(ConsumerRecord<byte[], byte[]> r) {
    if (isFromTable(r)) {
      return null;
    }
    VersionChange change;
    try {
      change = decoder.decode(r.key(), r.value());
    } catch (RuntimeException e) {
      deadLetter(r, CompactorErrors.undecodable(r.topic(), r.partition(), r.offset(), e).getMessage());
      return null;
    }
    if (change == null) {
      return null;
    }
    var problem = TableValueCheck.problem(change);
    if (problem.isPresent()) {
      deadLetter(r, "The version record at " + r.topic() + "-" + r.partition() + "@" + r.offset() + " cannot be "
          + "written to the table: its " + problem.get() + ". It was skipped; fix the value at its source and send "
          + "the change again");
      return null;
    }
    return change;
  }

  /**
   * Whether {@code r} is a row of the table replayed to the topic (marked
   * {@link io.dimstream.model.VersionRecordHeaders#FROM_TABLE}): the table holds it already. Kafka decodes a header's
   * name to a string when it is first asked for, from the last header back; the takeover adds the marker last, so a
   * replayed row costs one name. At 100M keys the names were a third of the compactor's CPU during a takeover.
   */
  static boolean isFromTable(ConsumerRecord<byte[], byte[]> r) {
    return r.headers().lastHeader(io.dimstream.model.VersionRecordHeaders.FROM_TABLE) != null;
  }

  /** Whether {@code r} is an event record ({@link io.dimstream.model.EventRecords}) rather than a version. */
  static boolean isEvent(ConsumerRecord<byte[], byte[]> r) {
    var kind = r.headers().lastHeader(io.dimstream.model.EventRecords.KIND_HEADER);
    return kind != null && io.dimstream.model.EventRecords.isEventKind(kind.value());
  }

  /**
   * Adds an event record ({@link io.dimstream.model.EventRecords}) to {@code batch}, kept beside the table at the
   * commit; one whose key is not an event record's goes to the dead-letter topic (only a foreign writer makes one).
   */
  void event(ConsumerRecord<byte[], byte[]> r, VersionBatch batch) {
    byte[] storeKey;
    try {
      storeKey = io.dimstream.model.EventRecords.storeKey(r.key());
    } catch (IllegalArgumentException e) {
      deadLetter(r, "The event record at " + r.topic() + "-" + r.partition() + "@" + r.offset() + " cannot be kept: "
          + e.getMessage() + ". Only dimstream's topology writes records with the header "
          + io.dimstream.model.EventRecords.KIND_HEADER + "; it was skipped");
      batch.add(r.partition(), r.offset(), null);
      return;
    }
    batch.addEvent(r.partition(), r.offset(), storeKey, r.value());
  }

  private void deadLetter(ConsumerRecord<byte[], byte[]> r, String detail) {
    LOG.error("{}; sent to {} as {}", detail, dlq, VersionDeadLetters.REASON);
    deadLetters.send(r, detail);
    progress.deadLettered();
  }
}
