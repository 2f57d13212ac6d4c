package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.Operation;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EnrichCommandTest {
  @TempDir
  Path dir;
  private Path table;

  @BeforeEach
  void table() throws Exception {
    Files.copy(Path.of("examples/customers.yaml"), dir.resolve("customers.yaml"));
    Files.copy(Path.of("examples/orders-enrich.yaml"), dir.resolve("orders-enrich.yaml"));
    DimensionSpec customers = DimensionSpecLoader.load(dir.resolve("customers.yaml"));
    table = dir.resolve("table");
    DeltaTable t = DeltaTable.create(table, customers, Map.of());
    // customer 1: Paris from 10:00, Lyon from 12:00; attributes name, email, city, tier
    t.newCommit(Operation.WRITE).apply(List.of(
        new VersionChange.Upsert(new Version(BusinessKey.of(1L), seq("2026-01-01T10:00:00Z"), seq("2026-01-01T12:00:00Z"),
            Arrays.asList("Ada", "ada@example.com", "Paris", "gold")), ChangeKind.OPEN),
        new VersionChange.Upsert(new Version(BusinessKey.of(1L), seq("2026-01-01T12:00:00Z"), null,
            Arrays.asList("Ada", "ada@example.com", "Lyon", "gold")), ChangeKind.OPEN)));
  }

  @Test
  void shouldWriteOneLinePerFactWithTheVersionValidAtItsTime() throws Exception {
    Path facts = Files.writeString(dir.resolve("orders.jsonl"), """
        {"order_id": 1, "customer_id": 1, "ordered_at": "2026-01-01T11:00:00Z", "amount": 20.0}
        {"order_id": 2, "customer_id": 1, "ordered_at": "2026-01-01T12:00:00Z", "amount": 5.5}
        {"order_id": 3, "customer_id": 1, "ordered_at": "2026-01-01T09:59:59Z", "amount": 1.0}
        {"order_id": 4, "customer_id": 2, "ordered_at": "2026-01-01T11:00:00Z", "amount": 7.0}
        """);
    Path out = dir.resolve("out.jsonl");

    int code = run("--facts", facts.toString(), "--output", out.toString());

    assertThat(code).isZero();
    assertThat(Files.readAllLines(out)).containsExactly(
        "{\"order_id\":1,\"customer_id\":1,\"ordered_at\":\"2026-01-01T11:00:00Z\",\"amount\":20.0,\"city\":\"Paris\",\"tier\":\"gold\",\"customer_found\":true,\"revision\":1}",
        "{\"order_id\":2,\"customer_id\":1,\"ordered_at\":\"2026-01-01T12:00:00Z\",\"amount\":5.5,\"city\":\"Lyon\",\"tier\":\"gold\",\"customer_found\":true,\"revision\":1}",
        "{\"order_id\":3,\"customer_id\":1,\"ordered_at\":\"2026-01-01T09:59:59Z\",\"amount\":1.0,\"city\":null,\"tier\":null,\"customer_found\":false,\"revision\":1}",
        "{\"order_id\":4,\"customer_id\":2,\"ordered_at\":\"2026-01-01T11:00:00Z\",\"amount\":7.0,\"city\":null,\"tier\":null,\"customer_found\":false,\"revision\":1}");
  }

  @Test
  void shouldStopAtALineThatIsNotAFactNamingItAndWriteNothing() throws Exception {
    Path facts = Files.writeString(dir.resolve("orders.jsonl"), """
        {"order_id": 1, "customer_id": 1, "ordered_at": "2026-01-01T11:00:00Z", "amount": 20.0}
        {"order_id": 2, "ordered_at": "2026-01-01T12:00:00Z", "amount": 5.5}
        """);
    Path out = dir.resolve("out.jsonl");
    StringWriter err = new StringWriter();

    int code = run(err, "--facts", facts.toString(), "--output", out.toString());

    assertThat(code).isEqualTo(Main.INPUT_ERROR);
    assertThat(err.toString()).contains("orders.jsonl, line 2").contains("missing-join").contains("customer_id")
        .contains("Fix:");
    assertThat(out).doesNotExist();
  }

  private int run(String... args) {
    return run(new StringWriter(), args);
  }

  private int run(StringWriter err, String... args) {
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 5];
    all[0] = "enrich";
    all[1] = "--config";
    all[2] = dir.resolve("orders-enrich.yaml").toString();
    all[3] = "--table";
    all[4] = table.toString();
    System.arraycopy(args, 0, all, 5, args.length);
    return cl.execute(all);
  }

  private static Sequence seq(String instant) {
    Instant t = Instant.parse(instant);
    return Sequence.of(t.getEpochSecond() * 1_000_000L);
  }
}
