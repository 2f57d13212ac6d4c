package io.dimstream.enrich.streams;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.enrich.EnrichmentFixtures;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.topology.ThreadStoppingException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

class VersionsFillTest {

  @Test
  void shouldStopTheStreamThreadWithTheReasonWhenNoBrokerAnswers() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort(); // nothing listens there once it is closed
    }
    EnrichmentSpec spec = EnrichmentFixtures.orders(EnrichmentFixtures.customers(Long.MAX_VALUE), false, "0s");
    Map<String, Object> app = Map.of(
        StreamsConfig.APPLICATION_ID_CONFIG, "dimstream-customers",
        StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + closedPort,
        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 1_000,
        ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000);
    KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(
        Stores.inMemoryKeyValueStore("enrich-orders_enriched-versions"), Serdes.Bytes(), Serdes.ByteArray())
        .withLoggingDisabled().build(); // never opened: a fill that cannot read must not mark it filled
    List<String> applied = new ArrayList<>();

    assertThatThrownBy(() -> VersionsFill.fill(spec, 0, app, store, (k, v, where) -> applied.add(where)))
        .isInstanceOf(VersionsFillException.class)
        .isInstanceOf(ThreadStoppingException.class)
        .hasMessageContaining("enrichment " + spec.name() + " cannot read partition 0 of "
            + spec.dimension().topics().versions())
        .hasMessageContaining("Fix: check that the brokers are reachable");
    org.assertj.core.api.Assertions.assertThat(applied).isEmpty();
  }
}
