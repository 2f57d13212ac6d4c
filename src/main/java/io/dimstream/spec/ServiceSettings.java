package io.dimstream.spec;

import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.StorageSettings;
import io.dimstream.storage.TableLocation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * How the service runs one dimension: where it keeps data, how often it compacts, which Kafka it talks to.
 * Every field has a default, so a spec without a {@code service:} section runs on a laptop.
 *
 * @param dataDir           root of local state: embedded broker logs, Kafka Streams state; default {@code ./data}
 * @param tablePath         where the Delta table lives: a local directory or an object store URI
 *                          ({@code s3://bucket/prefix}); default the directory {@code <dataDir>/tables/<name>}
 * @param kafka             Kafka client properties passed through as-is (bootstrap.servers, security.protocol,
 *                          sasl.*, ssl.*); no {@code bootstrap.servers} means: start the embedded broker
 * @param compactionInterval longest time between two table commits; default 10 s
 * @param compactionMaxRecords commit as soon as this many version records are buffered; default 50,000
 * @param httpHost          query endpoint host; default 127.0.0.1
 * @param httpPort          query endpoint port; default 8080, 0 picks a free port
 * @param partitions        partitions of topics the service creates; default 1
 * @param maxRecordBytes    the largest change record (key + value + headers, in bytes) the service applies; a larger
 *                          one goes to the dead-letter topic as {@code too-large}; 0 (the default) means what the
 *                          changes topic allows ({@code max.message.bytes}, read at start)
 * @param storage           how to reach the table's object store (region, endpoint, path-style, timeouts); unused
 *                          for a local table
 * @param httpSecurity      TLS and authentication of the query endpoint; default none (allowed on loopback only)
 * @param kafkaWait         how long {@code run} waits at start for an unreachable Kafka cluster before it gives up;
 *                          default {@link #KAFKA_WAIT_FOREVER}
 * @param stateMemory       bytes of native memory every Kafka Streams state store of the process shares for its
 *                          block cache and write buffers; default {@link #DEFAULT_STATE_MEMORY}
 */
public record ServiceSettings(
    Path dataDir,
    TableLocation tablePath,
    Map<String, String> kafka,
    Duration compactionInterval,
    int compactionMaxRecords,
    String httpHost,
    int httpPort,
    int partitions,
    int maxRecordBytes,
    StorageSettings storage,
    HttpSecurity httpSecurity,
    Duration kafkaWait,
    long stateMemory) {

  public static final Path DEFAULT_DATA_DIR = Path.of("data");
  public static final Duration DEFAULT_COMPACTION_INTERVAL = Duration.ofSeconds(10);
  public static final int DEFAULT_COMPACTION_MAX_RECORDS = 50_000;
  public static final String DEFAULT_HTTP_HOST = "127.0.0.1";
  public static final int DEFAULT_HTTP_PORT = 8080;
  /** {@code maxRecordBytes} meaning: take the changes topic's {@code max.message.bytes}. */
  public static final int MAX_RECORD_BYTES_FROM_TOPIC = 0;
  /**
   * {@code kafkaWait} meaning: wait as long as it takes. Brokers that are down when the service starts (a cluster
   * restart, a network cut, an instance started before its cluster) are usually back soon, and a supervisor that
   * restarts a service which gave up only adds the start time to the outage.
   */
  public static final Duration KAFKA_WAIT_FOREVER = java.time.temporal.ChronoUnit.FOREVER.getDuration();
  /**
   * {@code stateMemory} default: 512 MiB. With Kafka Streams' own RocksDB defaults each store partition could take up to
   * about 100 MiB (a 50 MiB block cache and three 16 MiB write buffers each), so tens of dimensions in one process
   * could take gigabytes; one budget for all keeps a single dimension of a few partitions where it was.
   */
  public static final long DEFAULT_STATE_MEMORY = 512L << 20;

  /** Settings whose state stores share the default budget. */
  public ServiceSettings(Path dataDir, TableLocation tablePath, Map<String, String> kafka, Duration compactionInterval,
      int compactionMaxRecords, String httpHost, int httpPort, int partitions, int maxRecordBytes,
      StorageSettings storage, HttpSecurity httpSecurity, Duration kafkaWait) {
    this(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort, partitions,
        maxRecordBytes, storage, httpSecurity, kafkaWait, DEFAULT_STATE_MEMORY);
  }

  /** Settings that wait for Kafka as long as it takes. */
  public ServiceSettings(Path dataDir, TableLocation tablePath, Map<String, String> kafka, Duration compactionInterval,
      int compactionMaxRecords, String httpHost, int httpPort, int partitions, int maxRecordBytes,
      StorageSettings storage, HttpSecurity httpSecurity) {
    this(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort, partitions,
        maxRecordBytes, storage, httpSecurity, KAFKA_WAIT_FOREVER);
  }

  /** Settings without a record size limit of their own (the changes topic's applies), a local table and an open endpoint. */
  public ServiceSettings(Path dataDir, Path tablePath, Map<String, String> kafka, Duration compactionInterval,
      int compactionMaxRecords, String httpHost, int httpPort, int partitions) {
    this(dataDir, TableLocation.local(tablePath), kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort,
        partitions, MAX_RECORD_BYTES_FROM_TOPIC, StorageSettings.defaults(), HttpSecurity.NONE);
  }

  /** Settings with an open query endpoint (plain HTTP, no authentication). */
  public ServiceSettings(Path dataDir, Path tablePath, Map<String, String> kafka, Duration compactionInterval,
      int compactionMaxRecords, String httpHost, int httpPort, int partitions, int maxRecordBytes) {
    this(dataDir, TableLocation.local(tablePath), kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort,
        partitions, maxRecordBytes, StorageSettings.defaults(), HttpSecurity.NONE);
  }

  public static ServiceSettings defaults(String dimension) {
    return new ServiceSettings(DEFAULT_DATA_DIR, DEFAULT_DATA_DIR.resolve("tables").resolve(dimension), Map.of(),
        DEFAULT_COMPACTION_INTERVAL, DEFAULT_COMPACTION_MAX_RECORDS, DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, 1);
  }

  /**
   * Every setting, with each secret shown as {@link Secrets#REDACTED}: Kafka passwords and JAAS configs, the query
   * endpoint's token and keystore password, credentials in the store's endpoint URL. Settings end up in logs and
   * messages, so this is the only way they are printed.
   */
  @Override
  public String toString() {
    return "ServiceSettings[dataDir=" + dataDir + ", tablePath=" + tablePath + ", kafka=" + Secrets.redacted(kafka)
        + ", compactionInterval=" + compactionInterval + ", compactionMaxRecords=" + compactionMaxRecords
        + ", httpHost=" + httpHost + ", httpPort=" + httpPort + ", partitions=" + partitions + ", maxRecordBytes="
        + maxRecordBytes + ", storage=" + storage + ", httpSecurity=" + httpSecurity + ", kafkaWait="
        + (kafkaWait.equals(KAFKA_WAIT_FOREVER) ? "forever" : kafkaWait) + ", stateMemory=" + stateMemory + "]";
  }

  /** The store of the table: its directory, or its prefix in an object store reached with {@link #storage()}. */
  public ObjectStore tableStore() {
    return ObjectStores.open(tablePath, storage);
  }

  /** Whether the table is the default one under the data directory, which moves with it. */
  public boolean tableFollowsDataDir(String dimension) {
    return tablePath.equals(TableLocation.local(dataDir.resolve("tables").resolve(dimension)));
  }

  /** The configured bootstrap servers, or null when the embedded broker should be started. */
  public String bootstrapServers() {
    return kafka.get("bootstrap.servers");
  }

  public ServiceSettings withTablePath(Path path) {
    return withTablePath(TableLocation.local(path));
  }

  public ServiceSettings withStorage(StorageSettings settings) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort,
        partitions, maxRecordBytes, settings, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withTablePath(TableLocation path) {
    return new ServiceSettings(dataDir, path, kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort,
        partitions, maxRecordBytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withDataDir(Path dir) {
    return new ServiceSettings(dir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost, httpPort,
        partitions, maxRecordBytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withKafka(Map<String, String> props) {
    return new ServiceSettings(dataDir, tablePath, Map.copyOf(props), compactionInterval, compactionMaxRecords,
        httpHost, httpPort, partitions, maxRecordBytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withHttpPort(int port) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost, port,
        partitions, maxRecordBytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withHttpHost(String host) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, host, httpPort,
        partitions, maxRecordBytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withCompaction(Duration interval, int maxRecords) {
    return new ServiceSettings(dataDir, tablePath, kafka, interval, maxRecords, httpHost, httpPort, partitions,
        maxRecordBytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withMaxRecordBytes(int bytes) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost,
        httpPort, partitions, bytes, storage, httpSecurity, kafkaWait, stateMemory);
  }

  public ServiceSettings withHttpSecurity(HttpSecurity security) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost,
        httpPort, partitions, maxRecordBytes, storage, security, kafkaWait, stateMemory);
  }

  public ServiceSettings withKafkaWait(Duration wait) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost,
        httpPort, partitions, maxRecordBytes, storage, httpSecurity, wait, stateMemory);
  }

  public ServiceSettings withStateMemory(long bytes) {
    return new ServiceSettings(dataDir, tablePath, kafka, compactionInterval, compactionMaxRecords, httpHost,
        httpPort, partitions, maxRecordBytes, storage, httpSecurity, kafkaWait, bytes);
  }
}
