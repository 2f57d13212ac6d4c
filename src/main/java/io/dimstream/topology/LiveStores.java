package io.dimstream.topology;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.KeyState;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Read access to a running topology's state stores (Kafka Streams interactive queries): a key's current-row
 * state, its stored events, and which instance owns it. Thread-safe; every call may throw Kafka Streams'
 * {@code InvalidStateStoreException} while the stores migrate during a rebalance.
 */
public final class LiveStores {
  private final KafkaStreams streams;
  private final EventJson json;
  private final StateBinary state;
  private final int sequenceParts;

  /** Over stores that hold only {@code spec}'s own attribute layout. */
  public LiveStores(KafkaStreams streams, DimensionSpec spec) {
    this(streams, spec, StateLayouts.NONE);
  }

  /**
   * Over stores that may also hold records of the {@code earlier} layouts (the topology's
   * {@link DimensionTopology#STATE_LAYOUTS_CONFIG}).
   *
   * @throws IllegalArgumentException when {@code earlier} does not describe layouts of {@code spec}'s attributes
   */
  public LiveStores(KafkaStreams streams, DimensionSpec spec, StateLayouts earlier) {
    this.streams = streams;
    this.json = new EventJson(spec);
    this.state = new StateBinary(spec, earlier);
    this.sequenceParts = spec.sequence().size();
  }

  /** The key's state after its newest event on this instance, or empty when this instance has none. */
  public Optional<KeyState> keyState(BusinessKey key) {
    // the key's newest stored event is its current state (see RocksDbHistoryStore)
    byte[] kb = json.keyBytes(key);
    long[] low = new long[sequenceParts];
    long[] high = new long[sequenceParts];
    Arrays.fill(low, Long.MIN_VALUE);
    Arrays.fill(high, Long.MAX_VALUE);
    try (KeyValueIterator<Bytes, byte[]> it = store(DimensionTopology.EVENT_STORE).reverseRange(
        RocksDbHistoryStore.eventKey(kb, Sequence.of(low)), RocksDbHistoryStore.eventKey(kb, Sequence.of(high)))) {
      if (!it.hasNext()) {
        return Optional.empty();
      }
      StoredEvent newest = state.decodeStoredEvent(key, it.next().value);
      return Optional.of(new KeyState(newest.sequence(), newest.openAfter()));
    }
  }

  /** The key's stored events (within the lateness horizon, plus the re-fold anchor), oldest first. */
  public List<StoredEvent> events(BusinessKey key) {
    byte[] kb = json.keyBytes(key);
    long[] low = new long[sequenceParts];
    long[] high = new long[sequenceParts];
    Arrays.fill(low, Long.MIN_VALUE);
    Arrays.fill(high, Long.MAX_VALUE);
    List<StoredEvent> out = new ArrayList<>();
    try (KeyValueIterator<Bytes, byte[]> it = store(DimensionTopology.EVENT_STORE).range(
        RocksDbHistoryStore.eventKey(kb, Sequence.of(low)), RocksDbHistoryStore.eventKey(kb, Sequence.of(high)))) {
      while (it.hasNext()) {
        out.add(state.decodeStoredEvent(key, it.next().value));
      }
    }
    return out;
  }

  /** The {@code application.server} of the instance that owns {@code key}, or empty when it is not known yet. */
  public Optional<HostInfo> ownerOf(BusinessKey key) {
    KeyQueryMetadata md = streams.queryMetadataForKey(DimensionTopology.EVENT_STORE, json.keyBytes(key),
        new ByteArraySerializer());
    if (md == null || md.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
      return Optional.empty();
    }
    return Optional.of(md.activeHost());
  }

  private ReadOnlyKeyValueStore<Bytes, byte[]> store(String name) {
    return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
  }
}
