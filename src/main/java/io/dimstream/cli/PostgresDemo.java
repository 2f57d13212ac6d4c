package io.dimstream.cli;

import io.dimstream.model.Version;
import io.dimstream.service.DimensionService;
import io.dimstream.source.LocalPostgres;
import io.dimstream.source.PostgresCapture;
import io.dimstream.source.SourcedSpecs;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.storage.TableLocation;
import io.dimstream.table.DeltaTable;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code dimstream demo --source postgres}: an embedded Postgres with a {@code customers} table, the service
 * capturing it with the database source, and a workload of transactions; prints the type-2 table following the
 * database as it changes, then keeps the workload going slowly until Ctrl-C (or exits with --exit-when-done).
 */
final class PostgresDemo {
  private static final int CUSTOMERS = 30;
  private static final int TRANSACTIONS = 150;
  private static final List<String> CITIES = List.of("Lisbon", "Porto", "Oslo", "Turin", "Kyoto");
  private static final List<String> TIERS = List.of("gold", "silver", "bronze");

  private PostgresDemo() {}

  static int run(String source, ServiceOptions options, boolean exitWhenDone, long timeoutSeconds) throws Exception {
    if (!source.equals("postgres")) {
      throw new CliErrors.UsageError("unknown --source '" + source + "'. Fix: use --source postgres");
    }
    if (options.dataDir == null) {
      options.dataDir = Path.of("data", "demo-postgres");
    }
    DemoCommand.freshDemoDir(options.dataDir);
    PrintStream out = System.out;
    Random random = new Random(42);
    out.println("Starting an embedded Postgres (wal_level=logical)...");
    try (LocalPostgres postgres = LocalPostgres.start("logical")) {
      String url = postgres.createOwner("shop", "dimstream", "secret");
      try (Connection c = postgres.connect("shop"); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE customers (customer_id bigint PRIMARY KEY, name text, email text, city text,"
            + " tier text)");
        s.execute("ALTER TABLE customers OWNER TO dimstream");
        for (int id = 1; id <= CUSTOMERS; id++) {
          s.execute(insert(id, random));
        }
      }
      Path yaml = Files.writeString(options.dataDir.resolve("customers_pg.yaml"), """
          name: customers_pg
          source:
            postgres:
              url: %s
              table: public.customers
          track: [city, tier]
          service: {compaction: {interval: 1s}}
          """.formatted(url));
      SourcedSpecs.Sourced sourced = Specs.loadSourced(yaml, options::apply);
      DimensionSpec spec = sourced.spec();
      out.printf("Spec %s (key, columns and commit order taken from the table):%n%s%n", yaml, Files.readString(yaml));
      try (DimensionService service = DimensionService.start(spec, options.bootstrapServers);
          PostgresCapture capture = DatabaseSource.start(service, sourced.source());
          Connection c = postgres.connect("shop")) {
        c.setAutoCommit(false);
        int committed = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!caughtUp(service, c)) { // the initial snapshot first, so the workload is seen live
          if (System.nanoTime() > deadline || capture.stopped().isDone()) {
            System.err.println("The initial snapshot did not reach the table; see the log above.");
            return 1;
          }
          Thread.sleep(500);
        }
        out.printf("Initial snapshot in the table: %s. Now %d transactions:%n", summary(service), TRANSACTIONS);
        while (committed < TRANSACTIONS) {
          transaction(c, random);
          committed++;
          if (committed % 30 == 0) {
            out.printf("  %3d transactions committed; the table: %s%n", committed, summary(service));
          }
          Thread.sleep(100);
        }
        while (!caughtUp(service, c)) {
          if (System.nanoTime() > deadline || capture.stopped().isDone()) {
            System.err.println("The table did not catch up with the database; see the log above.");
            return 1;
          }
          Thread.sleep(500);
        }
        TableLocation table = spec.service().tablePath();
        out.printf("%ndimstream demo --source postgres: %d transactions on %s; the table equals the database.%n",
            committed, url.replaceAll(":[^:@/]*@", ":***@"));
        out.printf("  %s%n  table  %s%n", summary(service), table);
        out.printf("  ./dimstream query history --table %s --key 7%n", table);
        out.printf("  curl http://%s:%d/dimensions/%s/keys/7/history%n", spec.service().httpHost(),
            service.httpPort(), spec.name());
        if (exitWhenDone) {
          return 0;
        }
        out.println("The workload goes on, one transaction a second; the table follows. Ctrl-C stops.");
        while (!capture.stopped().isDone()) {
          transaction(c, random);
          Thread.sleep(1000);
          out.printf("  %s%n", summary(service));
        }
        return 1;
      }
    }
  }

  /** One to three statements: a tracked change, an in-place one, a delete, or a (re-)insert. */
  private static void transaction(Connection c, Random random) throws SQLException {
    try (Statement s = c.createStatement()) {
      int statements = 1 + random.nextInt(3);
      for (int i = 0; i < statements; i++) {
        int id = 1 + random.nextInt(CUSTOMERS + 5);
        int what = random.nextInt(10);
        if (what < 4) {
          s.execute("UPDATE customers SET city = '" + CITIES.get(random.nextInt(CITIES.size())) + "', tier = '"
              + TIERS.get(random.nextInt(TIERS.size())) + "' WHERE customer_id = " + id);
        } else if (what < 7) {
          s.execute("UPDATE customers SET email = 'c" + id + "." + random.nextInt(100) + "@example.com'"
              + " WHERE customer_id = " + id);
        } else if (what < 8) {
          s.execute("DELETE FROM customers WHERE customer_id = " + id);
        } else {
          s.execute(insert(id, random) + " ON CONFLICT DO NOTHING");
        }
      }
    }
    c.commit();
  }

  private static String insert(int id, Random random) {
    return "INSERT INTO customers VALUES (" + id + ", 'Customer " + id + "', 'c" + id + "@example.com', '"
        + CITIES.get(random.nextInt(CITIES.size())) + "', '" + TIERS.get(random.nextInt(TIERS.size())) + "')";
  }

  private static String summary(DimensionService service) {
    DeltaTable table = service.table();
    long versions = 0;
    long current = 0;
    try (Stream<Version> rows = table.latest().scan()) {
      for (Version v : (Iterable<Version>) rows::iterator) {
        versions++;
        current += v.isCurrent() ? 1 : 0;
      }
    }
    return versions + " versions, " + current + " current rows, table version " + table.latest().version();
  }

  /** The table's current rows are the database's rows. */
  private static boolean caughtUp(DimensionService service, Connection c) throws SQLException {
    java.util.Set<String> database = new java.util.HashSet<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT customer_id, name, email, city, tier FROM customers")) {
      while (rs.next()) {
        database.add(List.of(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5))
            .toString());
      }
    }
    c.commit();
    java.util.Set<String> table = new java.util.HashSet<>();
    try (Stream<Version> rows = service.table().latest().scan()) {
      rows.filter(Version::isCurrent).forEach(v -> {
        List<Object> row = new java.util.ArrayList<>(v.key().values());
        row.addAll(v.attributes());
        table.add(row.toString());
      });
    }
    return database.equals(table);
  }
}
