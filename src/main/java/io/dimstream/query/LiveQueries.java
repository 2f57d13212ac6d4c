package io.dimstream.query;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import java.util.List;
import java.util.Optional;

/**
 * Point lookups of one dimension for the HTTP endpoint. The running service implements it over its state stores
 * (Kafka Streams interactive queries), where a key lives on one instance: {@link #ownerOf} says which, and the
 * endpoint forwards the request there. {@link TableLiveQueries} implements it over the table (offline, or as the
 * fallback beyond the stores' lateness horizon). Implementations must be thread-safe.
 *
 * <p>Times are values of the first sequence column as sequence longs (see {@link SequenceTimes}); a version is
 * valid at T when {@code valid_from <= T < valid_to}.
 */
public interface LiveQueries {

  DimensionSpec spec();

  /** The open version of {@code key}; empty when the key is unknown or deleted. */
  Optional<Version> current(BusinessKey key);

  /** Every version of {@code key}, oldest first; empty when the key is unknown. */
  List<Version> history(BusinessKey key);

  /** The version of {@code key} valid at {@code at}; empty when none was. */
  Optional<Version> asOf(BusinessKey key, long at);

  /**
   * The instance that must answer for {@code key} when it is not this one; empty when this instance answers (the
   * default: a single instance, or the table). Called before every key lookup; must not block for long.
   */
  default Optional<InstanceAddress> ownerOf(BusinessKey key) {
    return Optional.empty();
  }

  /** Where another instance's query endpoint listens: its {@code application.server} host and port. */
  record InstanceAddress(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }
}
