package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionRecordCodec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionId;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.compactor.Compactor;
import io.dimstream.service.TopicReader;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.EventRecordHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A zombie stream task: two instances of one dimension share the topology's tasks (4 partitions), one in this JVM and
 * one in a child JVM. While changes stream in, the child is frozen with SIGSTOP (every thread, heartbeats included)
 * for longer than its session timeout: the group gives its tasks to the other instance, which carries on. Then the
 * child is resumed (SIGCONT) and carries on where it stopped, with a transaction open on tasks that are no longer its
 * own: exactly-once v2 fences it (its offsets commit names a group generation that has passed; its transaction is
 * aborted), and it rejoins. Whether the freeze lands while version records are in an open transaction depends on
 * timing; the figure is printed. The versions topic, read as the compactor reads it ({@code read_committed}), folds to
 * exactly the reference versions (none lost, none doubled), and so does the table both instances' compactors wrote.
 */
class ZombieStreamTaskIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final String NAME = "customers_zombie";
  private static final String APPLICATION = "dimstream-" + NAME;
  private static final Duration PHASE = Duration.ofMinutes(2);

  @TempDir
  Path dir;

  @Test
  void shouldFenceAFrozenInstanceSoThatTheVersionsTopicHoldsEveryVersionOnce() throws Exception {
    // short sessions so that the frozen instance's tasks move within seconds
    String serviceLines = "  partitions: 4\n  kafka:\n    session.timeout.ms: \"6000\"\n"
        + "    heartbeat.interval.ms: \"1500\"\n";
    DimensionSpec local = DimensionSpecLoader.load(ExampleSpec.write(dir, NAME, "local", dir.resolve("local"),
        serviceLines, ""));
    Path childSpec = ExampleSpec.write(dir, NAME, "child", dir.resolve("child"), serviceLines, "");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(local, 23L).keys(300).events(6_000).sameSequence(0)
        .late(0.05).duplicates(0.03).noChange(0.1).deletes(0.03).generate();
    List<Version> expected = Scd2Fold.fold(local, stream.events());
    Path log = Path.of("target", "ZombieStreamTaskIT-child.log");
    Files.deleteIfExists(log);
    Map<String, Object> kafka = KAFKA.clientProperties();

    try (DimensionService one = DimensionService.start(local, KAFKA.bootstrapServers());
        ServiceProcess child = ServiceProcess.start(log, "--config", childSpec.toString(), "--bootstrap-servers",
            KAFKA.bootstrapServers(), "--http-port", "0");
        Admin admin = Admin.create(kafka)) {
      assertThat(CatchUp.await(() -> members(admin) == 2, PHASE)).as("both instances run tasks").isTrue();
      // changes keep coming at a steady rate, a record every 2 ms, so the child is mid-transaction when it freezes
      List<String> lines = stream.jsonLines();
      AtomicInteger produced = new AtomicInteger();
      AtomicReference<Exception> producerFailure = new AtomicReference<>();
      Thread producer = new Thread(() -> {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props)) {
          for (String line : lines) {
            p.send(new ProducerRecord<>(local.topics().changes(), null, line.getBytes(StandardCharsets.UTF_8)));
            produced.incrementAndGet();
            Thread.sleep(2);
          }
          p.flush();
        } catch (Exception e) {
          producerFailure.set(e);
        }
      }, "changes-producer");
      producer.start();
      assertThat(CatchUp.await(() -> produced.get() >= lines.size() / 3, PHASE)).isTrue();
      child.pause();
      assertThat(CatchUp.await(() -> members(admin) == 1, PHASE))
          .as("the frozen instance's session expired and its tasks moved to the other").isTrue();
      child.resume();
      producer.join(PHASE.toMillis());
      assertThat(producerFailure.get()).isNull();
      assertThat(produced.get()).isEqualTo(lines.size());
      assertThat(CatchUp.await(() -> members(admin) == 2, PHASE)).as("the resumed instance rejoined").isTrue();
      DeltaTable view = Compactor.openTable(local);
      assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(kafka, local, APPLICATION)
          && CatchUp.tableCaughtUp(kafka, local, view), PHASE)).as("both caught up").isTrue();
      assertThat(child.isAlive()).as("the resumed instance keeps running").isTrue();
      assertThat(child.stop()).as("the resumed instance stops cleanly").isZero();
    }

    // the version records only: event records are the event store's writes, which the compactor keeps beside the table
    List<ConsumerRecord<byte[], byte[]>> committed = TopicReader.readAll(kafka, local.topics().versions(), true).kept()
        .stream().filter(r -> !EventRecordHeaders.isEvent(r.headers())).toList();
    assertThat(EndToEndIT.sorted(fold(local, committed))).as("the versions topic, read_committed")
        .containsExactlyElementsOf(expected);
    try (var rows = DeltaTable.open(local.service().tablePath().localPath()).latest().scan()) {
      assertThat(EndToEndIT.sorted(rows.toList())).as("the table").containsExactlyElementsOf(expected);
    }
    long aborted = uncommittedRecords(kafka, local.topics().versions()) - committed.size();
    // whether the freeze caught the child with version records in an open transaction is up to timing (it was so in
    // some runs, not in others): the figure is shown, the checks above are what must hold either way
    System.out.println("ZombieStreamTaskIT: version records of aborted transactions on the topic: " + aborted);
  }

  /** The last record of each version identity, as the compacted topic and the compactor keep it. */
  private static List<Version> fold(DimensionSpec spec, List<ConsumerRecord<byte[], byte[]>> records) {
    VersionRecordCodec codec = VersionRecordCodec.forSpec(spec);
    Map<VersionId, Version> last = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      VersionChange c = codec.decodeChange(r.key(), r.value());
      if (c instanceof VersionChange.Upsert u) {
        last.put(c.id(), u.version());
      } else if (c != null) {
        last.remove(c.id());
      }
    }
    return new ArrayList<>(last.values());
  }

  /** Version records on the topic as a read_uncommitted consumer sees them: aborted transactions included. */
  private static long uncommittedRecords(Map<String, Object> kafka, String topic) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long count = 0;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
          .map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
      long deadline = System.currentTimeMillis() + 60_000;
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          if (!EventRecordHeaders.isEvent(r.headers())) {
            count++; // not the event store's writes, which the compactor keeps beside the table
          }
        }
      }
    }
    return count;
  }

  /** Members of the topology's group that hold partitions. */
  private static int members(Admin admin) {
    try {
      ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(APPLICATION)).all().get().get(APPLICATION);
      return (int) g.members().stream().filter(m -> !m.assignment().topicPartitions().isEmpty()).count();
    } catch (Exception e) {
      return -1;
    }
  }
}
