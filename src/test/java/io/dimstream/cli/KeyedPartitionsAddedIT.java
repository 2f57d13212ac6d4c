package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.history.Scd2Fold;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.ServiceException;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitions added to a keyed changes topic under a running service, on a real broker: each key's history lives in
 * the task of its partition, so the service stops its topology with the cause and the fix instead of replacing its
 * stream thread forever, keeps what it had applied, and a restart is refused with the same explanation.
 */
class KeyedPartitionsAddedIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldStopAndRefuseToRestartWhenTheChangesTopicGainedPartitions() throws Exception {
    // the topology notices the new partition at its next metadata refresh (5 minutes by default)
    DimensionSpec spec = ExampleSpec.customers(dir, "grow", "  partitions: 2\n  kafka: {metadata.max.age.ms: 1000}\n",
        "topics: {changes_keyed_by_business_key: true}\n");
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 7L).keys(100).events(400).generate();
    Path input = dir.resolve("changes.jsonl");
    stream.writeJsonLines(input);

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      ProduceCommand.produce(spec, input, service.kafka());
      boolean caughtUp = CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-grow")
          && CatchUp.tableCaughtUp(service.kafka(), spec, service.table()), Duration.ofMinutes(3));
      assertThat(caughtUp).as("the table caught up with the change stream").isTrue();
      try (Admin admin = Admin.create(new HashMap<>(service.kafka()))) {
        admin.createPartitions(Map.of(spec.topics().changes(), NewPartitions.increaseTo(3))).all().get();
      }
      CompletableFuture<Void> failed = CompletableFuture.runAsync(() -> {
        try {
          service.awaitFailure();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      failed.get(2, TimeUnit.MINUTES);
      assertThat(service.streams().state()).isIn(KafkaStreams.State.PENDING_ERROR, KafkaStreams.State.ERROR);
    }
    assertThat(EndToEndIT.sorted(KernelReader.latest(dir.resolve("table"), spec)))
        .as("what was applied before the partitions were added is kept")
        .containsExactlyElementsOf(Scd2Fold.fold(spec, stream.events()));

    assertThatThrownBy(() -> DimensionService.start(spec, KAFKA.bootstrapServers()).close())
        .isInstanceOf(ServiceException.class)
        .hasMessageContaining("grow.changes has 3 partitions")
        .hasMessageContaining("was built for 2")
        .hasMessageContaining("kafka-streams-application-reset --application-id dimstream-grow");
  }
}
