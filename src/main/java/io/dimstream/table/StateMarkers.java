package io.dimstream.table;

/**
 * The {@code txn} appIds by which a table says what state was built from it. The service's Kafka-side state (the
 * event store's changelog) is a cache of the table: {@code <dim>-state-<changelog topic id>} records the table version
 * that state was built from, so a service that finds its own changelog named there knows the state already holds the
 * table's history. A writer that changes the table's data outside the service (a snapshot applied from a file)
 * records {@code <dim>-batch} with the version it read, so a service whose state is older than that takes the table
 * over again.
 */
public final class StateMarkers {
  private StateMarkers() {}

  /** The appId recording the table version the state in the changelog topic {@code changelogTopicId} was built from. */
  public static String state(String dimension, String changelogTopicId) {
    return dimension + "-state-" + changelogTopicId;
  }

  /**
   * The appId a takeover records, with the table version it reads, before it writes the changelog
   * {@code changelogTopicId}: a changelog whose {@link #state} marker is missing but whose takeover marker is there
   * holds a takeover that did not finish, never a state to keep.
   */
  public static String takeoverStarted(String dimension, String changelogTopicId) {
    return state(dimension, changelogTopicId) + STARTED_SUFFIX;
  }

  /** The end of every {@link #takeoverStarted} appId. */
  public static final String STARTED_SUFFIX = "-started";

  /** The prefix of every {@link #state} and {@link #takeoverStarted} appId of a dimension. */
  public static String statePrefix(String dimension) {
    return dimension + "-state-";
  }

  /** The appId a batch writer records, with the table version its commit was planned on, in the same commit. */
  public static String batch(String dimension) {
    return dimension + "-batch";
  }
}
