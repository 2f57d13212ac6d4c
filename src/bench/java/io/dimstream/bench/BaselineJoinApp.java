package io.dimstream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The baseline of the enrichment benchmark: the minimal Kafka Streams app that joins orders as of their time with
 * customers, a stream–table left join against a versioned store (KIP-914, {@code
 * Stores.persistentVersionedKeyValueStore} with a history retention as long as the dimension's lateness horizon; the
 * join's grace period, KIP-923, is a parameter). Orders are re-keyed by customer id (Kafka Streams repartitions them,
 * as dimstream does); a change whose {@code op} is {@code d} becomes a tombstone; the joiner writes the order's
 * fields with {@code city}, {@code tier} and {@code customer_found}, as dimstream's record has them. A version that
 * arrives after an order was joined never re-emits it: this is what the baseline does not do. Exactly-once v2, the
 * commit interval given (dimstream's), Kafka Streams' defaults otherwise.
 */
final class BaselineJoinApp implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final KafkaStreams streams;

  private BaselineJoinApp(KafkaStreams streams) {
    this.streams = streams;
  }

  static BaselineJoinApp start(Map<String, Object> kafka, String appId, EnrichLoad.Topics in, String out,
      Duration historyRetention, Duration grace, long commitIntervalMs, Path stateDir) {
    StreamsBuilder b = new StreamsBuilder();
    KTable<String, byte[]> customers = b.stream(in.changes(), Consumed.with(Serdes.String(), Serdes.ByteArray()))
        .mapValues(v -> isDelete(v) ? null : v)
        .toTable(Materialized.<String, byte[]>as(
                Stores.persistentVersionedKeyValueStore("customers", historyRetention))
            .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()));
    b.stream(in.facts(), Consumed.with(Serdes.String(), Serdes.ByteArray()))
        .map((k, v) -> KeyValue.pair(read(v).path("customer_id").asText(), v))
        .leftJoin(customers, BaselineJoinApp::join,
            Joined.<String, byte[], byte[]>with(Serdes.String(), Serdes.ByteArray(), Serdes.ByteArray())
                .withGracePeriod(grace))
        .to(out, Produced.with(Serdes.String(), Serdes.ByteArray()));
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitIntervalMs));
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
    p.putAll(TopologyBench.extraKafka());
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.start();
    return new BaselineJoinApp(streams);
  }

  private static byte[] join(byte[] order, byte[] customer) {
    ObjectNode row = (ObjectNode) read(order);
    JsonNode c = customer == null ? null : read(customer);
    row.set("city", c == null ? null : c.get("city"));
    row.set("tier", c == null ? null : c.get("tier"));
    row.put("customer_found", c != null);
    try {
      return JSON.writeValueAsBytes(row);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isDelete(byte[] change) {
    return "d".equals(read(change).path("op").asText());
  }

  private static JsonNode read(byte[] bytes) {
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  KafkaStreams streams() {
    return streams;
  }

  @Override
  public void close() {
    streams.close();
  }
}
