package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.compactor.Compactor;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.service.DimensionService;
import io.dimstream.service.ExampleSpec;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.KernelReader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.EventRecordHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three compactors (the service's and two more, each with its own consumer and table instance, as separate service
 * instances would be) write one merge-on-read table from a versions topic of 4 partitions while changes stream in;
 * one of them stops half-way and the group hands its partitions to the others. The table ends equal to the reference
 * fold, as Kernel and our reader read it, with a gap-free log and every new file owned by one partition.
 */
class ScaleOutCompactorsIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  static DimensionSpec spec(String name, Path dir) throws Exception {
    return ExampleSpec.customers(dir, name, "  partitions: 4\n");
  }

  @Test
  void shouldShareOneTableAmongCompactorsThroughARebalanceWithoutLosingOrDoublingAVersion() throws Exception {
    DimensionSpec spec = spec("customers_scale", dir);
    // No two events of a key share a sequence: unkeyed records on 4 changes partitions reach the topology in an order
    // that is not the list's, and of two events with one sequence the one that arrives last counts.
    ChangeStreams.GeneratedStream stream = ChangeStreams.random(spec, 12L).keys(800).events(9_000).sameSequence(0)
        .late(0.05).duplicates(0.02).noChange(0.1).deletes(0.03).generate();
    List<String> lines = stream.jsonLines();
    Path table = spec.service().tablePath().localPath();
    VersionJson json = new VersionJson(spec);
    List<Compactor> others = new ArrayList<>();
    List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();

    try (DimensionService service = DimensionService.start(spec, KAFKA.bootstrapServers())) {
      produce(spec, service, lines.subList(0, 1_500), "first");
      assertThat(CatchUp.await(() -> service.compactor().commits() > 0, Duration.ofMinutes(1))).isTrue();

      for (String owner : List.of("second:/b", "third:/c")) {
        Compactor c = new Compactor(spec, Compactor.openTable(spec), json::decodeChange,
            service.kafka(), owner, Clock.systemUTC());
        Thread t = new Thread(c, "compactor-" + owner);
        t.start();
        others.add(c);
        threads.add(t);
      }
      Compactor second = others.get(0);
      Compactor third = others.get(1);
      assertThat(CatchUp.await(() -> !second.partitions().isEmpty() && !third.partitions().isEmpty()
          && !service.compactor().partitions().isEmpty(), Duration.ofMinutes(1)))
          .as("the group shares the 4 partitions among the three compactors").isTrue();
      Set<Integer> shared = new HashSet<>(service.compactor().partitions());
      shared.addAll(second.partitions());
      shared.addAll(third.partitions());
      assertThat(shared).containsExactlyInAnyOrder(0, 1, 2, 3);

      // changes stream in while the three commit concurrently
      for (int from = 1_500; from < 6_000; from += 500) {
        produce(spec, service, lines.subList(from, from + 500), "mid-" + from);
      }
      assertThat(CatchUp.await(() -> second.commits() >= 1 && third.commits() >= 1, Duration.ofMinutes(2)))
          .as("the added compactors commit").isTrue();
      Set<Integer> handedOver = second.partitions();
      assertThat(second.stop(Duration.ofSeconds(30))).as("the second compactor stops half-way").isTrue();
      threads.get(0).join(30_000);
      assertThat(second.failure()).isNull();

      for (int from = 6_000; from < lines.size(); from += 500) {
        produce(spec, service, lines.subList(from, Math.min(lines.size(), from + 500)), "late-" + from);
      }
      DeltaTable view = Compactor.openTable(spec);
      assertThat(CatchUp.await(() -> CatchUp.streamsCaughtUp(service.kafka(), spec, "dimstream-" + spec.name())
          && CatchUp.tableCaughtUp(service.kafka(), spec, view), Duration.ofMinutes(3)))
          .as("the remaining compactors brought the table up to date").isTrue();
      Set<Integer> after = new HashSet<>(service.compactor().partitions());
      after.addAll(third.partitions());
      assertThat(after).as("the stopped compactor's partitions %s moved to the others", handedOver)
          .containsAll(handedOver).containsExactlyInAnyOrder(0, 1, 2, 3);
      assertThat(service.compactor().failure()).isNull();
      assertThat(third.failure()).isNull();
      records.addAll(io.dimstream.service.TopicReader.readAll(service.kafka(), spec.topics().versions(), true).kept());
    } finally {
      for (Compactor c : others) {
        c.stop(Duration.ofSeconds(30));
      }
      for (Thread t : threads) {
        t.join(30_000);
      }
    }

    List<Version> expected = Scd2Fold.fold(spec, stream.events());
    List<Version> actual = EndToEndIT.sorted(KernelReader.latest(table, spec));
    if (!actual.equals(expected)) {
      Set<Object> bad = new HashSet<>();
      List<Version> missing = new ArrayList<>(expected);
      missing.removeAll(actual);
      List<Version> extra = new ArrayList<>(actual);
      extra.removeAll(expected);
      missing.forEach(v -> bad.add(v.key()));
      extra.forEach(v -> bad.add(v.key()));
      for (var r : records) {
        if (EventRecordHeaders.isEvent(r.headers())) {
          continue; // the event store's writes, which the compactor keeps beside the table: not versions
        }
        var change = json.decodeChange(r.key(), r.value());
        if (change != null && bad.contains(change.id().key())) {
          System.out.println("DIAG p" + r.partition() + "@" + r.offset() + " " + change);
        }
      }
      System.out.println("DIAG missing " + missing + "\nDIAG extra " + extra);
    }
    assertThat(EndToEndIT.sorted(KernelReader.latest(table, spec))).containsExactlyElementsOf(expected);
    DeltaTable ours = DeltaTable.open(table);
    assertThat(EndToEndIT.sorted(ours.latest().scan().toList())).containsExactlyElementsOf(expected);
    TwoCompactorsIT.assertLogIsValid(table);
    long merges = ours.history().stream().filter(c -> c.operation().equals("MERGE")).count();
    assertThat(merges).as("commits of several compactors").isGreaterThan(3);
    try (Stream<Path> files = Files.walk(table.resolve("is_current=true"))) {
      assertThat(files.filter(p -> p.toString().endsWith(".parquet")).map(p -> p.getFileName().toString()))
          .as("every current-row file holds the keys of one partition").allMatch(n -> n.matches("p[0-3]-.*"));
    }
  }

  private void produce(DimensionSpec spec, DimensionService service, List<String> lines, String name)
      throws Exception {
    Path file = dir.resolve(name + ".jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    ProduceCommand.produce(spec, file, service.kafka());
  }
}
