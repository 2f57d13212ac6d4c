package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.service.ExampleSpec;
import io.dimstream.service.KafkaClients;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances of one dimension started together on a backfilled table (as a deployment of replicas starts): one
 * takes the table over, the other waits for it and then finds the state named in the table, and the streamed
 * half continues the table as after one takeover.
 */
class TakeoverTwoInstancesIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  @TempDir
  Path dir;

  @Test
  void shouldTakeATableOverOnceWhenTwoInstancesStartTogether() throws Exception {
    String kafka = "  kafka: {bootstrap.servers: \"" + KAFKA.bootstrapServers() + "\"}\n";
    Path a = ExampleSpec.write(dir, "customers_takeover_twice", "a", dir.resolve("data-a"), kafka, "");
    Path b = ExampleSpec.write(dir, "customers_takeover_twice", "b", dir.resolve("data-b"), kafka, "");
    DimensionSpec spec = DimensionSpecLoader.load(a);
    ChangeStreams.GeneratedStream stream = EndToEndIT.stream(spec);
    List<Path> halves = TakeoverIT.halves(stream, dir);
    assertThat(TakeoverIT.cli("backfill", "--config", a.toString(), "--input", halves.get(0).toString(), "--table",
        dir.resolve("table").toString())).isZero();

    Path logA = TakeoverIT.log("two-a");
    Path logB = TakeoverIT.log("two-b");
    try (ServiceProcess first = ServiceProcess.start(logA, "--config", a.toString());
        ServiceProcess second = ServiceProcess.start(logB, "--config", b.toString())) {
      TakeoverIT.awaitStarted(first, spec, logA);
      TakeoverIT.awaitStarted(second, spec, logB);
      String textA = Files.readString(logA);
      String textB = Files.readString(logB);
      assertThat(List.of(textA, textB)).as("instances that took the table over")
          .filteredOn(t -> t.contains("Took over table version")).hasSize(1);
      assertThat(List.of(textA, textB)).as("instances that found the state named in the table")
          .filteredOn(t -> t.contains("holds the table's history")).hasSize(1);

      ProduceCommand.produce(spec, halves.get(1), KafkaClients.properties(spec, null));
      TakeoverIT.awaitCaughtUp(first, spec, logA, () -> DeltaTable.open(dir.resolve("table")));
      assertThat(second.stop()).isZero();
      assertThat(first.stop()).isZero();
    }
    TakeoverIT.assertTableIsTheFoldOf(spec, stream.events(), 0, dir.resolve("table"),
        DeltaTable.open(dir.resolve("table")));
  }
}
