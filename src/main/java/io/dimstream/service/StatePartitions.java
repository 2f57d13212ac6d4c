package io.dimstream.service;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.topology.EventStoreRecords;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Compares the changes topic's partition count with the one the dimension's state was built for (the partitions of
 * its event-store changelog topic, one per stream task). Each key's history lives in the task of the partition its
 * changes arrive in, and Kafka Streams cannot move state between partitions: on a changes topic that gained
 * partitions it fails every rebalance with a message about internal topics, and a keyed changes topic would place
 * keys in tasks that lack their history. Checked before the topology starts, so the service refuses with the cause
 * and the fix instead.
 */
final class StatePartitions {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private StatePartitions() {}

  /** The event-store changelog topic of the Streams application {@code applicationId}. */
  static String changelogTopic(String applicationId) {
    return EventStoreRecords.changelogTopic(applicationId);
  }

  /**
   * @throws ServiceException when the state exists and was built for another partition count than
   *                          {@code changesPartitions}
   */
  static void check(Map<String, Object> kafka, DimensionSpec spec, String applicationId, int changesPartitions) {
    OptionalInt builtFor = stateBuiltFor(kafka, applicationId);
    if (builtFor.isPresent() && builtFor.getAsInt() != changesPartitions) {
      throw ServiceErrors.changesPartitionsChanged(spec, applicationId, changesPartitions, builtFor.getAsInt(),
          changelogTopic(applicationId));
    }
  }

  /** The partition count of the state's changelog topic, or empty before the service first ran. */
  static OptionalInt stateBuiltFor(Map<String, Object> kafka, String applicationId) {
    String changelog = changelogTopic(applicationId);
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      var described = admin.describeTopics(List.of(changelog)).allTopicNames()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return OptionalInt.of(described.get(changelog).partitions().size());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return OptionalInt.empty();
      }
      throw ServiceErrors.statePartitionsUnknown(changelog, e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw ServiceErrors.statePartitionsUnknown(changelog, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ServiceErrors.statePartitionsUnknown(changelog, e);
    }
  }

  /** True when {@code failure} is Kafka Streams refusing internal topics whose partition count no longer fits. */
  static boolean isPartitionMismatch(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof org.apache.kafka.streams.errors.StreamsException && t.getMessage() != null
          && t.getMessage().contains("has invalid partitions")) {
        return true;
      }
    }
    return false;
  }

  /** Our explanation of a {@link #isPartitionMismatch partition mismatch}, or Kafka's message when none is found. */
  static String explain(Map<String, Object> kafka, DimensionSpec spec, String applicationId, Throwable failure) {
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      String changes = spec.topics().changes();
      int now = admin.describeTopics(List.of(changes)).allTopicNames().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .get(changes).partitions().size();
      check(kafka, spec, applicationId, now);
    } catch (ServiceException e) {
      return e.getMessage();
    } catch (Exception e) {
      // fall through to Kafka's own message
    }
    return failure.getMessage();
  }
}
