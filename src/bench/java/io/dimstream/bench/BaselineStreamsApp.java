package io.dimstream.bench;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
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
 */
final class BaselineStreamsApp implements AutoCloseable {
  private static final String STORE = "last";
  private final KafkaStreams streams;

  private BaselineStreamsApp(KafkaStreams streams) {
    this.streams = streams;
  }

  static BaselineStreamsApp start(Map<String, Object> kafka, String appId, String in, String out, Path stateDir) {
    StreamsBuilder b = new StreamsBuilder();
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.ByteArray(),
        Serdes.ByteArray()));
    b.stream(in, org.apache.kafka.streams.kstream.Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .process(GetPut::new, STORE)
        .to(out, org.apache.kafka.streams.kstream.Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(TopologyBench.commitIntervalMs())); // as dimstream's
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
    p.putAll(TopologyBench.extraKafka());
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.start();
    return new BaselineStreamsApp(streams);
  }

  /** Reads the key's previous value, stores the new one, forwards the record. */
  private static final class GetPut implements Processor<byte[], byte[], byte[], byte[]> {
    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<byte[], byte[]> store;

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
      this.context = context;
      this.store = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> r) {
      store.get(r.key());
      store.put(r.key(), r.value());
      context.forward(r);
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
