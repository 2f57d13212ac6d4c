package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.broker.BrokerExtension;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.TopicReader;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.testkit.ChangeStreams;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dimstream produce} to a changes topic of two partitions that the service repartitions: each key's records
 * sit in one partition in the file's order. Of two events of a key with equal sequences the later one in the file
 * counts; sent unkeyed, one key's records were spread over both partitions (a new partition every batch), and when
 * the decoding task of one partition ran behind the other's the earlier event arrived last and won.
 */
class ProduceKeyOrderIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void shouldSendEachKeysRecordsToOnePartitionInTheFilesOrder() throws Exception {
    DimensionSpec spec = ExampleSpec.customers(dir, "customers_produce_order", "  partitions: 2\n");
    try (Admin admin = Admin.create(new HashMap<>(KAFKA.clientProperties()))) {
      admin.createTopics(List.of(new NewTopic(spec.topics().changes(), 2, (short) 1))).all().get();
    }
    // about 3 MB: the producer's batches are 256 KB, so unkeyed records would change partition a dozen times
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 20_261_204L).keys(40).events(20_000)
        .late(0.2).duplicates(0.02).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);

    assertThat(ProduceCommand.produce(spec, input, KAFKA.clientProperties())).isEqualTo(20_000);

    Map<Long, List<String>> inFile = new LinkedHashMap<>();
    for (String line : stream.jsonLines()) {
      inFile.computeIfAbsent(customer(line), k -> new ArrayList<>()).add(line);
    }
    List<ConsumerRecord<byte[], byte[]>> sent = new ArrayList<>(
        TopicReader.readAll(KAFKA.clientProperties(), spec.topics().changes(), true).kept());
    sent.sort(Comparator.comparingInt((ConsumerRecord<byte[], byte[]> r) -> r.partition())
        .thenComparingLong(ConsumerRecord::offset));
    Map<Long, Set<Integer>> partitions = new HashMap<>();
    Map<Long, List<String>> onTopic = new LinkedHashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : sent) {
      String line = new String(r.value(), StandardCharsets.UTF_8);
      partitions.computeIfAbsent(customer(line), k -> new TreeSet<>()).add(r.partition());
      onTopic.computeIfAbsent(customer(line), k -> new ArrayList<>()).add(line);
    }
    assertThat(partitions).as("the partitions each customer's records went to").allSatisfy((k, p) ->
        assertThat(p).hasSize(1));
    assertThat(partitions.values()).as("both partitions used").flatExtracting(p -> p).contains(0, 1);
    assertThat(onTopic).as("each customer's records in the file's order").isEqualTo(inFile);
  }

  private static long customer(String line) {
    try {
      return JSON.readTree(line).get("customer_id").asLong();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
