package io.dimstream.source;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.PostgresSource;
import io.dimstream.topology.KeyedChanges;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures one Postgres table into the dimension's changes topic with Debezium's embedded engine and its Postgres
 * connector (pgoutput): the initial snapshot, then every committed change, as Debezium JSON envelopes without
 * schemas. Each record is keyed by its canonical business key and sent to that key's partition, so the topology
 * takes the keyed path. The connector's position is stored in Kafka ({@code <name>.source-offsets}) only after the
 * records before it are acknowledged, so a restart, even after a crash, resumes where the last stored position
 * says: nothing is lost, and what is sent twice is the same event at the same {@code source.sequence}, which the
 * dimension applies once.
 */
public final class PostgresCapture implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresCapture.class);
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  private final DimensionSpec spec;
  private final PostgresSource source;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KeyedChanges keyed;
  private final int partitions;
  private final String tableTopic;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  /** Per Debezium record key: the route of its last delete, which the tombstone after it follows. */
  private final Map<String, KeyedChanges.Route> lastDelete = new HashMap<>();
  private final ExecutorService runner;
  private DebeziumEngine<ChangeEvent<String, String>> engine;
  private volatile boolean closing;

  private PostgresCapture(DimensionSpec spec, PostgresSource source, Map<String, Object> kafka) {
    this.spec = spec;
    this.source = source;
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    this.producer = new KafkaProducer<>(p);
    this.keyed = new KeyedChanges(spec);
    this.partitions = producer.partitionsFor(spec.topics().changes()).size();
    this.tableTopic = spec.name() + "." + source.qualifiedTable();
    this.runner = Executors.newSingleThreadExecutor(r -> new Thread(r, "dimstream-source-" + spec.name()));
  }

  /**
   * Checks the database (see {@link PostgresCatalog#checkCapture}), then starts capturing into the changes topic
   * of {@code spec}, which must exist.
   *
   * @param kafka the service's Kafka client settings (bootstrap servers, security)
   * @throws SourceException when the database lacks something the capture needs, with the fix
   */
  public static PostgresCapture start(DimensionSpec spec, PostgresSource source, Map<String, Object> kafka) {
    try (PostgresCatalog catalog = PostgresCatalog.open(source)) {
      catalog.checkCapture(spec.key());
    }
    PostgresCapture capture = new PostgresCapture(spec, source, kafka);
    try {
      capture.engine = DebeziumEngine.create(Json.class)
          .using(capture.engineProperties(kafka))
          .using((success, message, error) -> capture.completed(success, message, error))
          .notifying(capture::handleBatch)
          .build();
      capture.runner.execute(capture.engine);
    } catch (RuntimeException e) {
      capture.close();
      throw e;
    }
    LOG.info("Capturing {} into {} ({} partitions, keyed by the business key; positions in {})", source,
        spec.topics().changes(), capture.partitions, offsetsTopic(spec));
    return capture;
  }

  /** The compacted topic that holds the connector's position. */
  public static String offsetsTopic(DimensionSpec spec) {
    return spec.name() + ".source-offsets";
  }

  private Properties engineProperties(Map<String, Object> kafka) {
    Properties p = new Properties();
    kafka.forEach((k, v) -> p.setProperty(k, String.valueOf(v)));
    p.setProperty("name", "dimstream-" + spec.name());
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
    p.setProperty("offset.storage.topic", offsetsTopic(spec));
    p.setProperty("offset.storage.partitions", "1");
    p.setProperty("offset.storage.replication.factor", "-1"); // the cluster's default
    p.setProperty("offset.flush.interval.ms", "1000");
    p.setProperty("database.hostname", source.host());
    p.setProperty("database.port", Integer.toString(source.port()));
    p.setProperty("database.user", source.user());
    if (source.password() != null) {
      p.setProperty("database.password", source.password());
    }
    p.setProperty("database.dbname", source.database());
    p.setProperty("topic.prefix", spec.name());
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", source.slot());
    p.setProperty("publication.name", source.publication());
    p.setProperty("publication.autocreate.mode", "filtered");
    p.setProperty("table.include.list", source.qualifiedTable());
    p.setProperty("snapshot.mode", source.snapshot() == PostgresSource.Snapshot.INITIAL ? "initial" : "no_data");
    // the encodings a dimension's column types read: decimals as exact text, timestamps as epoch millis
    p.setProperty("decimal.handling.mode", "string");
    p.setProperty("time.precision.mode", "connect");
    p.setProperty("key.converter.schemas.enable", "false");
    p.setProperty("value.converter.schemas.enable", "false");
    p.putAll(source.properties());
    return p;
  }

  /**
   * Sends a batch and waits for every acknowledgement before marking any record processed: the engine stores a
   * position only for records that are in Kafka.
   */
  private void handleBatch(List<ChangeEvent<String, String>> records,
      DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer) throws InterruptedException {
    List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
    for (ChangeEvent<String, String> r : records) {
      if (tableTopic.equals(r.destination())) {
        sent.add(producer.send(toRecord(r)));
      }
    }
    for (Future<RecordMetadata> f : sent) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("sending to " + spec.topics().changes() + " failed: " + e.getCause(),
            e.getCause());
      }
    }
    for (ChangeEvent<String, String> r : records) {
      committer.markProcessed(r);
    }
    committer.markBatchFinished();
  }

  private ProducerRecord<byte[], byte[]> toRecord(ChangeEvent<String, String> r) {
    String topic = spec.topics().changes();
    byte[] debeziumKey = r.key() == null ? null : r.key().getBytes(StandardCharsets.UTF_8);
    if (r.value() == null) {
      KeyedChanges.Route route = lastDelete.remove(r.key());
      return route == null ? new ProducerRecord<>(topic, debeziumKey, null)
          : new ProducerRecord<>(topic, route.partition(), route.key(), null);
    }
    byte[] value = r.value().getBytes(StandardCharsets.UTF_8);
    Optional<KeyedChanges.Route> route = keyed.route(debeziumKey, value, partitions);
    if (route.isEmpty()) {
      return new ProducerRecord<>(topic, debeziumKey, value); // rejected to the dead-letter topic, with its reason
    }
    if (isDelete(value)) {
      lastDelete.put(r.key(), route.get());
    }
    return new ProducerRecord<>(topic, route.get().partition(), route.get().key(), value);
  }

  private static boolean isDelete(byte[] value) {
    try {
      return "d".equals(JSON.readTree(value).path("op").asText());
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private void completed(boolean success, String message, Throwable error) {
    if (success || closing) {
      LOG.info("Capture of {} stopped: {}", source, message);
      stopped.complete(null);
    } else {
      SourceException e = String.valueOf(message).contains("no longer available on the server")
          ? SourceErrors.positionGone(source, offsetsTopic(spec), error) : SourceErrors.failed(source, message, error);
      LOG.error(e.getMessage(), error);
      stopped.completeExceptionally(e);
    }
  }

  /** Completes when the capture stops: normally after {@link #close}, exceptionally when it failed. */
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  /** Stops the engine (which stores its last position) and the producer. */
  @Override
  public void close() {
    closing = true;
    try {
      if (engine != null) {
        engine.close();
      }
    } catch (Exception e) {
      LOG.warn("Closing the capture of {} failed: {}", source, e.toString());
    }
    runner.shutdown();
    try {
      runner.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close();
  }
}
