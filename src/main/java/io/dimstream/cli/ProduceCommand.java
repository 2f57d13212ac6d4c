package io.dimstream.cli;

import io.dimstream.codec.WireFraming;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.registry.HttpSchemaRegistry;
import io.dimstream.service.KafkaClients;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.topology.KeyedChanges;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dimstream produce}: sends a file of change events to the dimension's changes topic. */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = {"Sends a file of change events (JSON lines or CSV with a header) to the changes topic.",
        "Given an enrichment spec, sends a JSON-lines file of facts to its facts topic, keyed by the fact key.",
        "Each JSON line is sent as it is, so bad lines reach the dead-letter topic like any bad record.",
        "With format: avro each record is first written as Avro binary with the spec's schema; a line that cannot be "
        + "converted stops produce before anything is sent, naming the line and the field (exit 1).",
        "Each record is keyed by its canonical business key and sent to that key's partition, so the records of one "
        + "key reach the service in the file's order (which decides between events with equal sequences); a line "
        + "that does not decode is sent unkeyed."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:every record was acknowledged by the broker", "1:the input file or the broker failed",
        "2:bad spec or usage"})
final class ProduceCommand implements Callable<Integer> {

  @Option(names = "--config", required = true, description = "The dimension spec, or an enrichment spec (YAML).")
  Path config;

  @Option(names = "--input", required = true, description = "Change events: .jsonl (one JSON record per line) or .csv.")
  Path input;

  @Option(names = "--bootstrap-servers", description = "Kafka to send to; default: the spec's service.kafka, "
      + "else the embedded broker of a running `dimstream run` on the same data directory.")
  String bootstrapServers;

  @Option(names = "--snapshot", description = "The file is a full snapshot (one row per key): after the rows, send an "
      + "end-of-snapshot marker to every partition, so keys the snapshot does not carry are closed at --at.")
  boolean snapshot;

  @Option(names = "--at", description = "With --snapshot: the snapshot's sequence (e.g. 2026-03-02T00:00:00Z); rows "
      + "without the sequence column take it.")
  String at;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(input)) {
      throw CliErrors.missingInput(input);
    }
    if (Specs.isEnrichment(config)) {
      EnrichmentSpec enrichment = EnrichmentSpecLoader.load(config);
      long sent = FactsProducer.produce(enrichment, input, KafkaClients.properties(enrichment.dimension(),
          bootstrapServers));
      System.err.printf("Sent %,d facts to %s%n", sent, enrichment.facts().topic());
      return 0;
    }
    DimensionSpec spec = Specs.load(config);
    if (snapshot != (at != null)) {
      throw new CliErrors.UsageError("--snapshot and --at go together. Fix: give both to send a full snapshot, or "
          + "neither to send change events");
    }
    SnapshotProduce snap = snapshot ? new SnapshotProduce(spec, at) : null;
    Map<String, Object> client = KafkaClients.properties(spec, bootstrapServers);
    long sent = produce(spec, input, client, snap);
    System.err.printf("Sent %,d records to %s%s%n", sent, spec.topics().changes(),
        snap == null ? "" : ", then an end-of-snapshot marker to every partition (snapshot " + snap.id() + " at " + at
            + ")");
    return 0;
  }

  /** Sends every record of {@code file}, waits for all acknowledgements, and returns the count. */
  static long produce(DimensionSpec spec, Path file, Map<String, Object> client) throws Exception {
    return produce(spec, file, client, null);
  }

  /**
   * Every record goes to its business key's partition, keyed by the canonical key bytes. A keyed changes topic (no
   * repartition hop) requires it; any other keeps one key's records in one partition, so the topology's repartition
   * passes them on in the file's order: sent unkeyed, the producer spreads one key's records over the partitions,
   * their decoding tasks may run at different paces, and of two events with equal sequences the one later in the
   * file could arrive first and lose. The partition is set here rather than left to the producer, whose
   * {@code partitioner.class} the spec's Kafka settings could change. A record that does not decode is rejected
   * wherever it goes.
   */
  private static ProducerRecord<byte[], byte[]> keyedRecord(KeyedChanges keyed, ProducerRecord<byte[], byte[]> rec,
      int partitions) {
    return keyed.route(rec.key(), rec.value(), partitions)
        .map(r -> new ProducerRecord<>(rec.topic(), r.partition(), r.key(), rec.value(), rec.headers()))
        .orElse(rec);
  }

  /**
   * As {@link #produce(DimensionSpec, Path, Map)}; with {@code snapshot}, the rows carry its headers and, once all
   * are acknowledged, one end-of-snapshot marker goes to every partition of the changes topic.
   */
  static long produce(DimensionSpec spec, Path file, Map<String, Object> client, SnapshotProduce snapshot)
      throws Exception {
    Properties p = new Properties();
    p.putAll(client);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    // An Avro spec converts every record first: a line that cannot be converted stops produce before anything is sent.
    long total = spec.inputFormat() == InputFormat.AVRO ? InputFiles.checkAll(file, spec) : InputFiles.countRecords(file);
    AtomicReference<Exception> failed = new AtomicReference<>();
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        InputFiles.LineReader lines = InputFiles.forTopic(file, spec);
        Progress progress = Progress.onStderr("records", total)) {
      java.util.OptionalInt schemaId = wireSchemaId(spec);
      KeyedChanges keyed = new KeyedChanges(spec);
      int changesPartitions = producer.partitionsFor(spec.topics().changes()).size();
      while (lines.hasNext()) {
        InputFiles.Line line = lines.next();
        byte[] value = schemaId.isEmpty() ? line.value() : WireFraming.frame(schemaId.getAsInt(), line.value());
        ProducerRecord<byte[], byte[]> rec = keyedRecord(keyed, snapshot == null
            ? new ProducerRecord<>(spec.topics().changes(), null, value) : snapshot.row(value),
            changesPartitions);
        producer.send(rec, (md, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          }
        });
        sent++;
        progress.step(1);
        if (failed.get() != null) {
          break;
        }
      }
      producer.flush();
      if (snapshot != null && failed.get() == null) {
        // after every row is acknowledged: each marker follows the rows of its partition
        int partitions = producer.partitionsFor(spec.topics().changes()).size();
        for (int part = 0; part < partitions; part++) {
          producer.send(snapshot.marker(part, partitions), (md, e) -> {
            if (e != null) {
              failed.compareAndSet(null, e);
            }
          });
        }
        producer.flush();
      }
    }
    if (failed.get() != null) {
      throw CliErrors.produceFailed(spec.topics().changes(), failed.get());
    }
    return sent;
  }

  /**
   * Under {@code schema_registry} with {@code format: avro}: the id of the spec's Avro schema, registered under {@code <changes topic>-value}
   * (the topic-name strategy), which frames every record; else empty.
   */
  private static java.util.OptionalInt wireSchemaId(DimensionSpec spec) {
    if (spec.inputFormat() == InputFormat.DEBEZIUM_AVRO) {
      throw new CliErrors.UsageError("produce writes Avro with the spec's own schema, but the format debezium-avro"
          + " reads envelopes written by Kafka Connect's AvroConverter. Fix: let the connector write the topic, or"
          + " load a file of Debezium JSON envelopes into the table with `dimstream backfill`");
    }
    // a registry that serves only the versions topic (versions_format: avro) leaves JSON changes as they are
    if (spec.schemaRegistry() == null || spec.inputFormat() != InputFormat.AVRO) {
      return java.util.OptionalInt.empty();
    }
    try (HttpSchemaRegistry registry = new HttpSchemaRegistry(spec.schemaRegistry(), java.time.Clock.systemUTC())) {
      return java.util.OptionalInt.of(registry.registerValue(spec.topics().changes(), spec.avroSchema()));
    }
  }
}
