package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.change.RejectReason;
import io.dimstream.enrich.BatchEnrichment;
import io.dimstream.enrich.EnrichedRows;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.EnrichmentSpecLoader;
import io.dimstream.enrich.Fact;
import io.dimstream.enrich.WireFormatConsumer;
import io.dimstream.history.Scd2Fold;
import io.dimstream.interop.SparkChecks;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.registry.ApicurioRegistry;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.KafkaClients;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.OutputFormat;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.DimensionTopology;
import io.dimstream.topology.EventRecordHeaders;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code format: avro} with {@code schema_registry} through the running service, against a real Apicurio Registry
 * (its Confluent-compatible API): writer versions interleaved on one topic, records the registry cannot serve in
 * the dead-letter topic with their reasons, and the registry stopped and started again mid-stream with nothing lost
 * and nothing dead-lettered; {@code dimstream produce} writing the wire format and the versions topic written in it
 * for a consumer with the registry; Debezium envelopes written by the
 * AvroConverter (key and value framed, tombstones after deletes); a registry that asks for a login; an enrichment
 * run by {@code dimstream run --enrich} writing its topic in the wire format, read by a registry consumer as the JSON
 * join would give it, with a new schema version when the enrichment gains an attribute. The table read back by Delta
 * Kernel and by Spark equals the reference fold of the good records.
 */
class SchemaRegistryIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final long T0 = 1_767_225_600_000_000L; // 2026-01-01T00:00:00Z in microseconds
  private static final List<String> CITIES = List.of("Oslo", "Bergen", "Lyon", "Porto", "Turku");
  private static final List<String> TIERS = List.of("gold", "silver", "basic");

  /** The first writer: the spec's key, sequence and city, no tier; city nullable. */
  private static final Schema V1 = parse("""
      {"type": "record", "name": "CustomerChange", "namespace": "shop", "fields": [
        {"name": "customer_id", "type": "long"},
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "city", "type": ["null", "string"], "default": null}]}""");
  /** The second: another field order, an int key, millis, a field the spec lacks and tier added with a default. */
  private static final Schema V2 = parse("""
      {"type": "record", "name": "CustomerChange", "namespace": "shop", "fields": [
        {"name": "tier", "type": "string", "default": "basic"},
        {"name": "note", "type": "string", "default": ""},
        {"name": "city", "type": ["null", "string"], "default": null},
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "customer_id", "type": "int"}]}""");
  /** A third, first seen while the registry is down: fields reordered again and one more the spec lacks. */
  private static final Schema V3 = parse("""
      {"type": "record", "name": "CustomerChange", "namespace": "shop", "fields": [
        {"name": "customer_id", "type": "long"},
        {"name": "segment", "type": "string", "default": "retail"},
        {"name": "city", "type": ["null", "string"], "default": null},
        {"name": "tier", "type": "string", "default": "basic"},
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-micros"}}]}""");
  /** A writer without the key: no record of it can be read as the spec's columns. */
  private static final Schema KEYLESS = parse("""
      {"type": "record", "name": "CustomerChange", "namespace": "shop", "fields": [
        {"name": "updated_at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "city", "type": ["null", "string"], "default": null}]}""");

  private static ApicurioRegistry registry;
  private static Path registryDir;

  @TempDir
  Path dir;

  @BeforeAll
  static void startRegistry() throws Exception {
    registryDir = Files.createTempDirectory("apicurio-");
    registry = ApicurioRegistry.start(registryDir);
  }

  @AfterAll
  static void stopRegistry() throws Exception {
    registry.close();
  }

  @Test
  void shouldFoldInterleavedWriterVersionsDeadLetterWhatTheRegistryCannotServeAndWaitOutAnOutage() throws Exception {
    DimensionSpec spec = spec("customers_registry");
    String subject = spec.topics().changes() + "-value";
    int v1 = registry.register(subject, V1.toString());
    int v2 = registry.register(subject, V2.toString());
    int keyless = registry.register("customers-keyless-value", KEYLESS.toString());
    Random random = new Random(20_261_207L);
    List<ChangeEvent> expected = new ArrayList<>();

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(service.kafka(), new ByteArraySerializer(),
            new ByteArraySerializer())) {
      // Phase 1: two writer versions interleaved, in shuffled sequence order (late events), with bad records among them.
      List<Integer> order = shuffled(0, 2_000, random);
      for (int i = 0; i < order.size(); i++) {
        long seq = T0 + order.get(i) * 1000L;
        send(producer, spec, random.nextBoolean() ? v1Record(v1, seq, random, expected) : v2Record(v2, seq, random,
            expected));
        if (i % 400 == 7) {
          send(producer, spec, "{\"customer_id\": 1}".getBytes(StandardCharsets.UTF_8));
          send(producer, spec, frame(987_654, V1, v1Values(1, seq, "Oslo")));
          send(producer, spec, frame(keyless, KEYLESS, keyless(seq)));
        }
      }
      producer.flush();
      awaitCaughtUp(service, spec);
      Map<String, Integer> reasons = dlqReasons(service, spec);
      assertThat(reasons).containsExactlyInAnyOrderEntriesOf(Map.of(RejectReason.BAD_MAGIC_BYTE, 5,
          RejectReason.UNKNOWN_SCHEMA_ID, 5, RejectReason.UNRESOLVABLE_SCHEMA, 5));

      // Phase 2: a third writer version registered, then the registry stops; its records arrive while it is down.
      int v3 = registry.register(subject, V3.toString());
      registry.stop();
      List<Integer> later = shuffled(2_000, 2_600, random);
      for (int i = 0; i < later.size(); i++) {
        long seq = T0 + later.get(i) * 1000L;
        send(producer, spec, i % 2 == 0 ? v3Record(v3, seq, random, expected) : v1Record(v1, seq, random, expected));
      }
      producer.flush();
      HttpResponse<String> health = awaitHealth(service, "\"schema_registry\"");
      assertThat(health.statusCode()).as("/health while records wait for the registry").isEqualTo(503);
      assertThat(health.body()).contains("has not answered since");
      registry.restart();

      awaitCaughtUp(service, spec);
      assertThat(dlqReasons(service, spec)).as("nothing went to the dead-letter topic during the outage")
          .isEqualTo(reasons);
      HttpResponse<String> after = awaitHealth(service, "\"compactor\"");
      assertThat(after.body()).doesNotContain("schema_registry");
    }

    List<Version> table = new ArrayList<>(KernelReader.latest(dir.resolve("table"), spec));
    table.sort(BusinessKeys.VERSION_ORDER);
    assertThat(expected).hasSize(2_600);
    assertThat(table).containsExactlyElementsOf(Scd2Fold.fold(spec, expected));
    assertThat(SparkChecks.read(dir.resolve("table"), spec)).as("Spark's SELECT *")
        .containsExactlyElementsOf(Scd2Fold.fold(spec, expected));
  }

  @Test
  void shouldWaitWithAWrongLoginAndReadEverythingOnceTheLoginIsRight() throws Exception {
    try (ApicurioRegistry guarded = ApicurioRegistry.startWithLogin(dir.resolve("guarded"), "dimstream", "s3cret")) {
      DimensionSpec wrong = loginSpec(guarded, "not-the-password");
      int v1 = guarded.register(wrong.topics().changes() + "-value", V1.toString());
      Random random = new Random(20_261_210L);
      List<ChangeEvent> expected = new ArrayList<>();
      try (DimensionService service = DimensionService.start(wrong, KAFKA.bootstrapServers());
          KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(service.kafka(), new ByteArraySerializer(),
              new ByteArraySerializer())) {
        for (int seq : shuffled(0, 300, random)) {
          send(producer, wrong, v1Record(v1, T0 + seq * 1000L, random, expected));
        }
        producer.flush();
        HttpResponse<String> health = awaitHealth(service, "\"schema_registry\"");
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body()).contains("HTTP 401").contains("schema_registry.basic_auth");
        assertThat(health.body()).doesNotContain("not-the-password");
      }

      DimensionSpec right = loginSpec(guarded, "s3cret");
      try (DimensionService service = DimensionService.start(right, KAFKA.bootstrapServers())) {
        awaitCaughtUp(service, right);
        assertThat(TopicReader.readAll(service.kafka(), right.topics().dlq(), true).kept()).isEmpty();
      }
      List<Version> table = new ArrayList<>(KernelReader.latest(dir.resolve("table"), right));
      table.sort(BusinessKeys.VERSION_ORDER);
      assertThat(table).containsExactlyElementsOf(Scd2Fold.fold(right, expected));
    }
  }

  /** The same dimension and state, reading {@code guarded} as user dimstream with {@code password}. */
  private DimensionSpec loginSpec(ApicurioRegistry guarded, String password) throws IOException {
    Path file = dir.resolve("customers_login.yaml");
    Files.writeString(file, """
        name: customers_login
        columns: {customer_id: long, updated_at: timestamp, city: string, tier: string}
        key: [customer_id]
        sequence: [updated_at]
        format: avro
        schema_registry:
          url: %s
          basic_auth: {user: dimstream, password: %s}
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 1s}
          http: {port: 0}
        """.formatted(guarded.confluentUrl(), password, dir.resolve("data"), dir.resolve("table")));
    return DimensionSpecLoader.load(file);
  }

  @Test
  void shouldApplyWhatProduceWritesAndWriteVersionsARegistryConsumerReads() throws Exception {
    String yaml = Files.readString(Path.of("examples/customers-avro.yaml"))
        .replaceFirst("(?m)^name: customers", "name: customers_produced")
        .replaceFirst("(?m)^schema: \\S+", "schema: " + Path.of("schemas/customers-change.avsc").toAbsolutePath())
        + "\nversions_format: avro\nschema_registry: {url: " + registry.confluentUrl() + "}\nservice:\n  data_dir: "
        + dir.resolve("data")
        + "\n  table_path: " + dir.resolve("table") + "\n  compaction: {interval: 1s}\n  http: {port: 0}\n";
    Path file = dir.resolve("customers_produced.yaml");
    Files.writeString(file, yaml);
    DimensionSpec spec = DimensionSpecLoader.load(file);
    // ChangeStreams writes JSON: generate with the JSON example spec, whose columns are the schema's fields.
    DimensionSpec jsonTwin = EndToEndIT.spec("customers_json_twin", dir);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(jsonTwin, 20_261_208L).keys(200).events(2_000)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      assertThat(ProduceCommand.produce(spec, input, service.kafka())).isEqualTo(2_000);
      awaitCaughtUp(service, spec);
      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
      ConsumerRecord<byte[], byte[]> first = TopicReader.readAll(service.kafka(), spec.topics().changes(), true)
          .kept().get(0);
      assertThat(first.value()[0]).as("the wire format's magic byte").isZero();
      versionRecords = TopicReader.readAll(service.kafka(), spec.topics().versions(), true).kept();
    }

    assertThat(registry.subjects()).contains(spec.topics().changes() + "-value", spec.topics().versions() + "-value");
    List<Version> table = new ArrayList<>(KernelReader.latest(dir.resolve("table"), spec));
    table.sort(BusinessKeys.VERSION_ORDER);
    assertThat(table).containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
    assertThat(SparkChecks.read(dir.resolve("table"), spec)).as("Spark's SELECT *")
        .containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));
    // A consumer with the registry reads the versions topic: the last record of each version, as the registry's
    // schema decodes it, says what the table holds.
    assertThat(readWithRegistry(versionRecords)).containsExactlyInAnyOrderElementsOf(rows(spec, table));
  }

  private List<ConsumerRecord<byte[], byte[]>> versionRecords;

  /** The last value of each version (record key), decoded with the writer schema its id names; retracted left out. */
  private static List<String> readWithRegistry(List<ConsumerRecord<byte[], byte[]>> records) throws Exception {
    Map<String, byte[]> last = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      if (EventRecordHeaders.isEvent(r.headers())) {
        continue; // the event store's writes, which the compactor keeps beside the table: not versions
      }
      last.put(new String(r.key(), StandardCharsets.UTF_8), r.value());
    }
    Map<Integer, Schema> schemas = new TreeMap<>();
    List<String> out = new ArrayList<>();
    for (byte[] value : last.values()) {
      if (value == null) {
        continue;
      }
      ByteBuffer header = ByteBuffer.wrap(value, 0, 5);
      assertThat(header.get()).as("magic byte").isZero();
      int id = header.getInt();
      Schema writer = schemas.computeIfAbsent(id, i -> {
        try {
          return parse(registry.schema(i));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      GenericRecord v = new org.apache.avro.generic.GenericDatumReader<GenericRecord>(writer).read(null,
          org.apache.avro.io.DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null));
      out.add(v.get("customer_id") + "|" + v.get("valid_from") + "|" + v.get("valid_to") + "|" + v.get("city") + "|"
          + v.get("tier"));
    }
    return out;
  }

  private static List<String> rows(DimensionSpec spec, List<Version> table) {
    List<String> names = spec.attributeColumns().stream().map(c -> c.name()).toList();
    List<String> out = new ArrayList<>();
    for (Version v : table) {
      out.add(v.key().values().get(0) + "|" + v.validFrom().part(0) + "|"
          + (v.validTo() == null ? null : v.validTo().part(0)) + "|" + v.attributes().get(names.indexOf("city")) + "|"
          + v.attributes().get(names.indexOf("tier")));
    }
    return out;
  }

  @Test
  void shouldFoldDebeziumEnvelopesWrittenByTheAvroConverter() throws Exception {
    Path file = dir.resolve("customers_dbz.yaml");
    Files.writeString(file, """
        name: customers_dbz
        columns: {customer_id: long, city: string, lsn: long}
        key: [customer_id]
        sequence: [lsn]            # read from the envelope's source block
        format: debezium-avro
        schema_registry: {url: %s}
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 1s}
          http: {port: 0}
        """.formatted(registry.confluentUrl(), dir.resolve("data"), dir.resolve("table")));
    DimensionSpec spec = DimensionSpecLoader.load(file);
    // as the AvroConverter registers them: the key and the envelope, under the topic-name strategy
    int keyId = registry.register(spec.topics().changes() + "-key", DBZ_KEY.toString());
    int envelopeId = registry.register(spec.topics().changes() + "-value", DBZ_ENVELOPE.toString());
    Random random = new Random(20_261_209L);
    List<ChangeEvent> expected = new ArrayList<>();
    Map<Long, String> current = new TreeMap<>();

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(service.kafka(), new ByteArraySerializer(),
            new ByteArraySerializer())) {
      List<Integer> lsns = shuffled(1, 1_501, random); // arrival out of commit order: late events across keys
      for (int lsn : lsns) {
        long key = 1 + random.nextInt(60);
        byte[] recordKey = frame(keyId, DBZ_KEY, Map.of("customer_id", key));
        String before = current.get(key);
        if (before != null && random.nextInt(8) == 0) {
          expected.add(ChangeEvent.delete(BusinessKey.of(key), Sequence.of(lsn)));
          send(producer, spec, recordKey, dbzEnvelope(envelopeId, "d", key, before, null, lsn));
          send(producer, spec, recordKey, null); // tombstones.on.delete
          current.remove(key);
        } else {
          String city = CITIES.get(random.nextInt(CITIES.size()));
          expected.add(ChangeEvent.upsert(BusinessKey.of(key), Sequence.of(lsn), List.of(city)));
          send(producer, spec, recordKey, dbzEnvelope(envelopeId, before == null ? "c" : "u", key, before, city, lsn));
          current.put(key, city);
        }
      }
      producer.flush();
      awaitCaughtUp(service, spec);
      assertThat(TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()).isEmpty();
    }

    List<Version> table = new ArrayList<>(KernelReader.latest(dir.resolve("table"), spec));
    table.sort(BusinessKeys.VERSION_ORDER);
    assertThat(table).containsExactlyElementsOf(Scd2Fold.fold(spec, expected));
    assertThat(SparkChecks.read(dir.resolve("table"), spec)).as("Spark's SELECT *")
        .containsExactlyElementsOf(Scd2Fold.fold(spec, expected));
  }

  @Test
  void shouldWriteEnrichedRecordsARegistryConsumerReadsAsTheJsonJoinAndANewSchemaVersionForANewAttribute()
      throws Exception {
    // the versions topic in the wire format: the enrichment's output follows it by default
    Path dimensionFile = ExampleSpec.write(dir, "customers_enriched_avro", "customers_enriched_avro",
        dir.resolve("data"), "  kafka: {bootstrap.servers: \"" + KAFKA.bootstrapServers() + "\"}\n",
        "versions_format: avro\nschema_registry: {url: " + registry.confluentUrl() + "}\n");
    DimensionSpec customers = DimensionSpecLoader.load(dimensionFile);
    EnrichmentSpec before = EnrichmentIT.ordersSpec(dir, "orders_registry", dimensionFile.getFileName().toString());
    Path enrichmentFile = dir.resolve("orders_registry.yaml");
    assertThat(before.outputFormat()).isEqualTo(OutputFormat.AVRO);
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(customers, 20_261_210L).keys(40).events(600)
        .late(0.2).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    int half = stream.jsonLines().size() / 2;
    Path first = Files.write(dir.resolve("first.jsonl"), stream.jsonLines().subList(0, half));
    Path second = Files.write(dir.resolve("second.jsonl"), stream.jsonLines().subList(half, stream.jsonLines().size()));
    List<Fact> facts = EnrichmentIT.orders(stream.events(), 350); // the first 300 now, the others after the restart
    Path earlyOrders = EnrichmentIT.writeOrders(before, facts.subList(0, 300), dir.resolve("orders-early.jsonl"));
    Path lateOrders = EnrichmentIT.writeOrders(before, facts.subList(300, 350), dir.resolve("orders-late.jsonl"));
    List<Version> history = Scd2Fold.fold(customers, stream.events());
    String subject = before.outputTopic() + "-value";

    Path log = dir.resolve("run-1.log");
    try (ServiceProcess service = ServiceProcess.start(log, "--config", dimensionFile.toString(), "--enrich",
        enrichmentFile.toString())) {
      TakeoverIT.awaitStarted(service, customers, log);
      Map<String, Object> kafka = KafkaClients.properties(customers, null);
      ProduceCommand.produce(customers, first, kafka);
      assertThat(FactsProducer.produce(before, earlyOrders, kafka)).isEqualTo(300);
      ProduceCommand.produce(customers, second, kafka); // late changes correct orders enriched before them
      Map<String, String> expected = joined(before, facts.subList(0, 300), history);
      Map<String, String> last = awaitEnriched(kafka, before, List.of(before), List.of(expected));
      assertThat(last).as("the last record per order, read with the registry").isEqualTo(expected);
      assertThat(TopicReader.readAll(kafka, before.dlqTopic(), true).kept()).isEmpty();
      assertThat(service.stop()).isZero();
    }
    assertThat(registry.versions(subject)).hasSize(1);

    // the enrichment gains an attribute: its schema gets a new version, records written from now on name it, and
    // the records already on the topic stay readable with the schema they name
    Files.writeString(enrichmentFile, Files.readString(enrichmentFile).replace("attributes: [city, tier]",
        "attributes: [city, tier, name]"));
    EnrichmentSpec after = EnrichmentSpecLoader.load(enrichmentFile);
    Path log2 = dir.resolve("run-2.log");
    try (ServiceProcess service = ServiceProcess.start(log2, "--config", dimensionFile.toString(), "--enrich",
        enrichmentFile.toString())) {
      TakeoverIT.awaitStarted(service, customers, log2);
      Map<String, Object> kafka = KafkaClients.properties(customers, null);
      assertThat(FactsProducer.produce(after, lateOrders, kafka)).isEqualTo(50);
      // a kept order is emitted again under the new schema when the added attribute shows a value, else it keeps
      // its record: either way the record equals the JSON join of the spec whose schema it names
      Map<String, String> expectedBefore = joined(before, facts.subList(0, 300), history);
      Map<String, String> expectedAfter = joined(after, facts, history);
      Map<String, String> last = awaitEnriched(kafka, before, List.of(before, after),
          List.of(expectedAfter, expectedBefore));
      Map<String, String> wrong = new TreeMap<>();
      last.forEach((order, got) -> {
        if (!got.equals(expectedAfter.get(order)) && !got.equals(expectedBefore.get(order))) {
          wrong.put(order, got);
        }
      });
      assertThat(wrong).as("orders whose last record is neither join").isEmpty();
      assertThat(last.keySet()).isEqualTo(expectedAfter.keySet());
      for (Fact f : facts.subList(300, 350)) {
        String order = "[" + f.values().get(0) + "]";
        assertThat(last.get(order)).as("order %s, sent after the restart", order).isEqualTo(expectedAfter.get(order));
      }
      assertThat(service.stop()).isZero();
    }
    assertThat(registry.versions(subject)).hasSize(2);
  }

  /** The batch join of {@code facts} with {@code history} as JSON rows without their revision, by fact key. */
  private static Map<String, String> joined(EnrichmentSpec spec, List<Fact> facts, List<Version> history) {
    EnrichedRows rows = new EnrichedRows(spec);
    Map<String, String> out = new TreeMap<>();
    BatchEnrichment.join(spec, facts, history).forEach((k, e) -> out.put(k,
        EnrichmentIT.withoutRevision(rows.row(e)).toString()));
    return out;
  }

  /**
   * Waits until the enrichment's topic holds a record for every fact key of the first of {@code expected} and the last
   * record per key, read with the writer schema its id names in the registry, is the row one of {@code expected} gives
   * that key; returns those records as JSON rows without their revision. {@code specs}: the enrichment specs the
   * topic was written under; a record is read as the one whose schema its id names.
   */
  private static Map<String, String> awaitEnriched(Map<String, Object> kafka, EnrichmentSpec spec,
      List<EnrichmentSpec> specs, List<Map<String, String>> expected) throws InterruptedException {
    Map<String, String> last = new TreeMap<>();
    Map<Integer, Schema> schemas = new TreeMap<>();
    CatchUp.await(() -> {
      last.clear();
      for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(kafka, spec.outputTopic(), true).kept()) {
        last.put(new String(r.key(), StandardCharsets.UTF_8), asJson(r.value(), specs, schemas));
      }
      return last.keySet().containsAll(expected.get(0).keySet()) && last.entrySet().stream()
          .allMatch(e -> expected.stream().anyMatch(x -> e.getValue().equals(x.get(e.getKey()))));
    }, Duration.ofMinutes(3));
    return last;
  }

  /** A record of the enriched topic as a registry consumer reads it, written as the JSON row of its values. */
  private static String asJson(byte[] value, List<EnrichmentSpec> specs, Map<Integer, Schema> schemas) {
    Schema writer = schemas.computeIfAbsent(WireFormatConsumer.schemaId(value), id -> {
      try {
        return parse(registry.schema(id));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    List<String> fields = writer.getFields().stream().map(Schema.Field::name).toList();
    EnrichmentSpec spec = specs.stream().filter(s -> s.outputColumns().stream().map(Column::name).toList()
        .equals(fields)).findFirst().orElseThrow(() -> new AssertionError("no spec has the fields " + fields));
    List<Object> values = WireFormatConsumer.values(WireFormatConsumer.read(value, writer));
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    List<Column> columns = spec.outputColumns();
    for (int i = 0; i < columns.size(); i++) {
      row.set(columns.get(i).name(), ColumnValues.toJson(values.get(i), columns.get(i).type()));
    }
    return EnrichmentIT.withoutRevision(row).toString();
  }

  private static final Schema DBZ_KEY = parse("""
      {"type": "record", "name": "Key", "namespace": "shop.public.customers", "fields": [
        {"name": "customer_id", "type": "long"}]}""");
  /** What the AvroConverter registers for a Postgres table's envelope (trimmed to the fields dimstream reads). */
  private static final Schema DBZ_ENVELOPE = parse("""
      {"type": "record", "name": "Envelope", "namespace": "shop.public.customers", "fields": [
        {"name": "before", "type": ["null", {"type": "record", "name": "Value", "fields": [
          {"name": "customer_id", "type": "long"},
          {"name": "city", "type": ["null", "string"], "default": null}]}], "default": null},
        {"name": "after", "type": ["null", "Value"], "default": null},
        {"name": "source", "type": {"type": "record", "name": "Source", "namespace": "io.debezium.connector.postgresql",
          "fields": [{"name": "version", "type": "string"}, {"name": "connector", "type": "string"},
                     {"name": "ts_ms", "type": "long"}, {"name": "lsn", "type": ["null", "long"], "default": null}]}},
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": null},
        {"name": "transaction", "type": ["null", {"type": "record", "name": "block", "namespace": "event", "fields": [
          {"name": "id", "type": "string"}, {"name": "total_order", "type": "long"}]}], "default": null}]}""");

  private static byte[] dbzEnvelope(int id, String op, long key, String before, String after, long lsn) {
    Schema value = DBZ_ENVELOPE.getField("after").schema().getTypes().get(1);
    GenericRecord source = new GenericData.Record(DBZ_ENVELOPE.getField("source").schema());
    source.put("version", "3.1.0.Final");
    source.put("connector", "postgresql");
    source.put("ts_ms", 1_772_352_000_000L + lsn);
    source.put("lsn", lsn);
    Map<String, Object> values = new TreeMap<>();
    values.put("before", before == null ? null : row(value, key, before));
    values.put("after", after == null ? null : row(value, key, after));
    values.put("source", source);
    values.put("op", op);
    values.put("ts_ms", 1_772_352_000_000L + lsn);
    values.put("transaction", null);
    return frame(id, DBZ_ENVELOPE, values);
  }

  private static GenericRecord row(Schema value, long key, String city) {
    GenericRecord r = new GenericData.Record(value);
    r.put("customer_id", key);
    r.put("city", city);
    return r;
  }

  private DimensionSpec spec(String name) throws IOException {
    String yaml = "name: " + name + """

        columns: {customer_id: long, updated_at: timestamp, city: string, tier: string}
        key: [customer_id]
        sequence: [updated_at]
        format: avro
        schema_registry:
          url: %s
          cache_size: 10
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 1s}
          http: {port: 0}
        """.formatted(registry.confluentUrl(), dir.resolve("data"), dir.resolve("table"));
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, yaml);
    return DimensionSpecLoader.load(file);
  }

  private static byte[] v1Record(int id, long seq, Random random, List<ChangeEvent> expected) {
    long key = 1 + random.nextInt(150);
    String city = random.nextInt(10) == 0 ? null : CITIES.get(random.nextInt(CITIES.size()));
    expected.add(ChangeEvent.upsert(BusinessKey.of(key), Sequence.of(seq), Arrays.asList(city, null)));
    return frame(id, V1, v1Values(key, seq, city));
  }

  private static Map<String, Object> v1Values(long key, long seq, String city) {
    Map<String, Object> values = new TreeMap<>();
    values.put("customer_id", key);
    values.put("updated_at", seq);
    values.put("city", city);
    return values;
  }

  private static byte[] v2Record(int id, long seq, Random random, List<ChangeEvent> expected) {
    int key = 1 + random.nextInt(150);
    String city = CITIES.get(random.nextInt(CITIES.size()));
    String tier = TIERS.get(random.nextInt(TIERS.size()));
    expected.add(ChangeEvent.upsert(BusinessKey.of((long) key), Sequence.of(seq), List.of(city, tier)));
    Map<String, Object> values = new TreeMap<>();
    values.put("tier", tier);
    values.put("note", "written by v2");
    values.put("city", city);
    values.put("updated_at", seq / 1000); // timestamp-millis
    values.put("customer_id", key);
    return frame(id, V2, values);
  }

  private static byte[] v3Record(int id, long seq, Random random, List<ChangeEvent> expected) {
    long key = 1 + random.nextInt(150);
    String city = CITIES.get(random.nextInt(CITIES.size()));
    String tier = TIERS.get(random.nextInt(TIERS.size()));
    expected.add(ChangeEvent.upsert(BusinessKey.of(key), Sequence.of(seq), List.of(city, tier)));
    Map<String, Object> values = new TreeMap<>();
    values.put("customer_id", key);
    values.put("segment", "smb");
    values.put("city", city);
    values.put("tier", tier);
    values.put("updated_at", seq);
    return frame(id, V3, values);
  }

  private static Map<String, Object> keyless(long seq) {
    Map<String, Object> values = new TreeMap<>();
    values.put("updated_at", seq);
    values.put("city", "Oslo");
    return values;
  }

  /** What a Confluent or Apicurio serializer writes: byte 0, the schema id, the record in Avro binary. */
  private static byte[] frame(int id, Schema schema, Map<String, Object> values) {
    GenericRecord r = new GenericData.Record(schema);
    values.forEach(r::put);
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(ByteBuffer.allocate(5).put((byte) 0).putInt(id).array());
      BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(schema).write(r, enc);
      enc.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, DimensionSpec spec, byte[] value) {
    producer.send(new ProducerRecord<>(spec.topics().changes(), null, value));
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, DimensionSpec spec, byte[] key, byte[] value) {
    producer.send(new ProducerRecord<>(spec.topics().changes(), key, value));
  }

  private static List<Integer> shuffled(int from, int to, Random random) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(i);
    }
    Collections.shuffle(out, random);
    return out;
  }

  private static void awaitCaughtUp(DimensionService service, DimensionSpec spec) throws InterruptedException {
    boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
        && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofSeconds(180));
    assertThat(caughtUp).as("the table caught up with the change stream").isTrue();
  }

  private static Map<String, Integer> dlqReasons(DimensionService service, DimensionSpec spec) {
    Map<String, Integer> out = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(service.kafka(), spec.topics().dlq(), true).kept()) {
      String reason = new String(r.headers().lastHeader(DimensionTopology.ERROR_HEADER).value(), StandardCharsets.UTF_8);
      out.merge(reason, 1, Integer::sum);
    }
    return out;
  }

  /** Polls {@code /health} until its body holds {@code text}. */
  private static HttpResponse<String> awaitHealth(DimensionService service, String text) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    HttpResponse<String> last = null;
    while (System.nanoTime() < deadline) {
      last = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort() + "/health")).build(),
          HttpResponse.BodyHandlers.ofString());
      if (last.body().contains(text)) {
        return last;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("/health never said " + text + "; last: " + (last == null ? null : last.body()));
  }

  private static Schema parse(String json) {
    return new Schema.Parser().parse(json);
  }
}
