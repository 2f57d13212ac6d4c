package io.dimstream.bench;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The floor of the streaming path: a minimal Kafka Streams app, exactly-once v2 with the service's commit
 * interval and otherwise Kafka Streams' defaults, that does one RocksDB get and one put per record and writes one
 * record out. Its producers keep Streams' linger of 100 ms: on 2 idle cores that makes it 24 % faster unpaced
 * (46.4k against 35.3k records/s at 5 ms), and the baseline is the best a minimal app does, not a twin of the
 * service's settings ({@code -Dtopology.kafka=producer.linger.ms=5} runs both apps with the service's).
 * Whatever dimstream does beyond this (decode, repartition, SCD2 fold, event store, encode) is its own cost.
 *
 * <p>With close-outs on, the same app also writes the key's previous value to a second topic whenever it had one:
 * as many Kafka records per change as dimstream writes (a changelog record, a new version and, for a key seen
 * before, the close-out of its previous version), so the ratio to it shows what dimstream's own work costs beyond
 * the records its topic format asks for.
 */
final class BaselineStreamsApp implements AutoCloseable {
  private static final String STORE = "last";
  private static final String OUT = "out";
  private static final String CLOSE_OUTS = "close-outs";
  private final KafkaStreams streams;

  private BaselineStreamsApp(KafkaStreams streams) {
    this.streams = streams;
  }

  static BaselineStreamsApp start(Map<String, Object> kafka, String appId, String in, String out, Path stateDir) {
    return start(kafka, appId, in, out, null, stateDir);
  }

  /** As above; with {@code closeOuts} not null, every previous value of a key is written there too. */
  static BaselineStreamsApp start(Map<String, Object> kafka, String appId, String in, String out, String closeOuts,
      Path stateDir) {
    Topology b = new Topology();
    b.addSource("in", new ByteArrayDeserializer(), new ByteArrayDeserializer(), in);
    b.addProcessor("get-put", () -> new GetPut(closeOuts != null), "in");
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.ByteArray(),
        Serdes.ByteArray()), "get-put");
    b.addSink(OUT, out, new ByteArraySerializer(), new ByteArraySerializer(), "get-put");
    if (closeOuts != null) {
      b.addSink(CLOSE_OUTS, closeOuts, new ByteArraySerializer(), new ByteArraySerializer(), "get-put");
    }
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(TopologyBench.commitIntervalMs())); // as dimstream's
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
    p.putAll(TopologyBench.extraKafka());
    KafkaStreams streams = new KafkaStreams(b, p);
    streams.start();
    return new BaselineStreamsApp(streams);
  }

  /** Reads the key's previous value, stores the new one, forwards the record (and the previous value). */
  private static final class GetPut implements Processor<byte[], byte[], byte[], byte[]> {
    private final boolean closeOuts;
    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<byte[], byte[]> store;

    GetPut(boolean closeOuts) {
      this.closeOuts = closeOuts;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
      this.context = context;
      this.store = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> r) {
      byte[] previous = store.get(r.key());
      store.put(r.key(), r.value());
      if (closeOuts && previous != null) {
        context.forward(r.withValue(previous), CLOSE_OUTS);
      }
      context.forward(r, OUT);
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
