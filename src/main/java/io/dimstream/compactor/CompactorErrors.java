package io.dimstream.compactor;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** Builds every {@link CompactorException}: what happened, why, and how to fix it. */
final class CompactorErrors {
  private CompactorErrors() {}

  static LeaseHeldException leaseHeld(Object lease, String holder, Duration age, Duration ttl) {
    return new LeaseHeldException("Another compactor (" + holder + ") is writing the table: its lease " + lease
        + " was renewed " + age.toSeconds() + " s ago. Only one compactor may write a table. Stop the other "
        + "service, or wait " + ttl.toSeconds() + " s after it stopped; delete the lease file only if you are sure "
        + "it is gone.");
  }

  static CompactorException leaseLost(Object lease, String holder) {
    return new CompactorException("The compactor lease " + lease + " was taken over by " + holder
        + " while this compactor was running; stopping so that only one compactor writes the table.");
  }

  static LeaseHeldException overtaken(String topic, int partition, long firstOffset, long recorded) {
    return new LeaseHeldException("The table already records offset " + recorded + " of " + topic + "-" + partition
        + ", at or past this compactor's next record (offset " + firstOffset + "): another compactor has written "
        + "the table meanwhile. Nothing was committed; this compactor re-reads from the table's offsets.");
  }

  static LeaseHeldException notAGroupMember(String group, java.util.Set<Integer> partitions, Exception e) {
    return new LeaseHeldException("This compactor is no longer a member of the current generation of group " + group
        + " (" + e.getMessage() + "): it was paused or cut off past its poll or session timeout, and partitions "
        + partitions + " of its batch may belong to another compactor now. Nothing was committed; this compactor "
        + "rejoins the group and re-reads from the table's offsets.");
  }

  static CompactorException leaseIo(Object lease, IOException e) {
    return new CompactorException("Cannot write the compactor lease " + lease + ": " + e.getMessage()
        + ". Check that the table directory is writable.", e);
  }

  static CompactorException undecodable(String topic, int partition, long offset, Exception e) {
    return new CompactorException("Cannot decode the version record at " + topic + "-" + partition + "@" + offset
        + ": " + e.getMessage() + ". The versions topic must only be written by the dimstream topology of this "
        + "dimension; check the topic name in the spec.", e);
  }

  static CompactorException deadLetterFailed(String topic, int partition, long offset, String dlq, Throwable e) {
    return new CompactorException("Cannot send the version record at " + topic + "-" + partition + "@" + offset
        + ", which the table cannot take, to the dead-letter topic '" + dlq + "': " + e + ". Nothing was committed "
        + "past it; the compactor stops so the record is not lost. Fix: make '" + dlq + "' writable (it must exist "
        + "and accept records as large as the versions topic's), then restart.", e);
  }

  static CompactorException missingTopic(String topic, Duration waited) {
    return new CompactorException("The versions topic '" + topic + "' does not exist after " + waited.toSeconds()
        + " s, so the compactor has nothing to read. Start the topology (dimstream run) so it is created, or create "
        + "it as a compacted topic.");
  }

  static CompactorException topicIdUnknown(String topic, Throwable e) {
    return new CompactorException("Cannot read the topic id of the versions topic '" + topic + "': " + e
        + ". The compactor names the topic's incarnation in the table's offsets, so it reads nothing without it. "
        + "Fix: check that the topic exists and that the brokers answer (bootstrap.servers, security settings), and "
        + "that this client may describe the topic (ACL DESCRIBE on the topic); then restart.", e);
  }

  static CompactorException endOffsetsUnknown(String topic, Throwable e) {
    return new CompactorException("Cannot read the end offsets of the versions topic '" + topic + "': " + e
        + ". The compactor needs them once at start to tell whether offsets the table recorded before they named the "
        + "topic id are this topic's. Fix: check that the brokers answer and that this client may describe the "
        + "topic (ACL DESCRIBE on the topic); then restart.", e);
  }

  static CompactorException noTopicId(String topic) {
    return new CompactorException("The cluster keeps no topic id for the versions topic '" + topic + "', so the "
        + "compactor cannot tell this topic from an earlier one of the same name. Fix: run a Kafka cluster of "
        + "version 2.8 or later in KRaft mode (every topic has an id there), then restart.");
  }
}
