package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.model.Version;
import io.dimstream.service.TopicReader;
import io.dimstream.source.LocalPostgres;
import io.dimstream.source.PostgresCapture;
import io.dimstream.source.SourcedSpecs;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.DeltaTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Postgres (wal_level=logical) captured by the real Debezium connector inside {@code dimstream run} (a child
 * JVM), on a real broker. The oracle is the database itself: an audit trigger records every row image each
 * transaction writes, and the driver records the order transactions commit in; the table's history must be the
 * type-2 history of that audit, and its current rows {@code SELECT * FROM customers}. The workload: an initial
 * snapshot, 1,000+ random transactions of one to five statements (inserts, tracked and untracked updates, updates
 * that change nothing, deletes, re-inserts), keys updated in interleaved transactions that commit out of start
 * order, an unchanged TOASTed text column, REPLICA IDENTITY FULL and back, ALTER TABLE ADD COLUMN, and the service
 * killed with SIGKILL mid-stream, with the slot lagging while it is down.
 */
class PostgresSourceIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(120);
  private static final int SEED_ROWS = 120;
  private static final int KEYS = 200;
  private static LocalPostgres postgres;

  @TempDir
  Path dir;

  private final long seed = Long.getLong("dimstream.seed", System.nanoTime());
  private final Random random = new Random(seed);
  /** The transaction ids in the order they committed. */
  private final List<Long> commitOrder = new ArrayList<>();
  private Path log;
  private String url;

  @BeforeAll
  static void startPostgres() {
    postgres = LocalPostgres.start("logical");
  }

  @AfterAll
  static void stopPostgres() {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void shouldKeepTheTypeTwoHistoryOfTheAuditThroughACrash() throws Exception {
    System.out.println("PostgresSourceIT seed " + seed + " (rerun with -Ddimstream.seed=" + seed + ")");
    url = postgres.createOwner("shop", "dimstream", "secret");
    try (Connection c = connect()) {
      createTables(c);
      c.setAutoCommit(false);
      for (int id = 1; id <= SEED_ROWS; id++) {
        insert(c, id);
      }
      commit(c);
    }
    Path yaml = Files.writeString(dir.resolve("customers.yaml"), """
        name: customers_audit
        source:
          postgres:
            url: %s
            table: public.customers
        track: [city, tier]
        service:
          data_dir: %s
          table_path: %s
          compaction: {interval: 500ms}
          http: {port: 0}
          partitions: 2
        """.formatted(url, dir.resolve("data"), dir.resolve("table")));
    DimensionSpec spec = SourcedSpecs.load(yaml).spec();
    assertThat(spec.key()).as("key from the primary key").containsExactly("id");
    assertThat(spec.columns()).extracting(c -> c.name() + ":" + c.type())
        .as("columns from the table, then the commit order from source.sequence")
        .containsExactly("id:int", "name:string", "city:string", "tier:string", "bio:string",
            "source.sequence.0:long", "source.sequence.1:long");
    assertThat(spec.topics().changesKeyed()).isTrue();

    log = Path.of("target", "PostgresSourceIT-service.log");
    Files.deleteIfExists(log);
    String[] args = {"--config", yaml.toString(), "--bootstrap-servers", KAFKA.bootstrapServers()};
    int transactions = 0;
    try (ServiceProcess service = ServiceProcess.start(log, args); Connection c = connect();
        Connection other = connect()) {
      awaitOrFail(service, () -> currentRows(spec).size() == SEED_ROWS, "the initial snapshot in the table");
      transactions += workload(c, other, 450, 0);
      service.kill(); // mid-stream: the source and the topology are behind the database here
    }
    try (Connection c = connect(); Connection other = connect()) {
      transactions += workload(c, other, 300, 450); // the slot holds what is committed while nobody reads it
    }
    try (ServiceProcess service = ServiceProcess.start(log, args); Connection c = connect();
        Connection other = connect()) {
      transactions += workload(c, other, 300, 750);
      Map<Integer, List<String>> database = databaseRows();
      awaitOrFail(service, () -> currentRows(spec).equals(database), "the table's current rows to equal the database");
      Map<Integer, List<String>> audit = auditHistory();
      awaitOrFail(service, () -> history(spec).equals(audit), "the table's history to equal the audit's");
      assertThat(service.stop()).as("exit code after SIGTERM; see " + log).isZero();
    }
    assertThat(transactions).isGreaterThanOrEqualTo(1_000);
    assertThat(history(spec)).isEqualTo(auditHistory());
    assertThat(currentRows(spec)).isEqualTo(databaseRows());
    assertThat(Files.readString(log)).as("the column added mid-stream is warned about (unknown_fields: warn)")
        .contains("field 'note'");
    assertWhatTheConnectorSent(spec);
  }

  /** The cases the workload is there for did happen: snapshot reads, unchanged TOASTed values, tombstones. */
  private void assertWhatTheConnectorSent(DimensionSpec spec) {
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(KAFKA.clientProperties(), spec.topics().changes(), true).kept();
    List<String> values = records.stream().map(r -> r.value() == null ? "" : new String(r.value(),
        StandardCharsets.UTF_8)).toList();
    assertThat(values).filteredOn(v -> v.contains("\"op\":\"r\"")).hasSizeGreaterThanOrEqualTo(SEED_ROWS);
    assertThat(values).filteredOn(v -> v.contains("__debezium_unavailable_value")).isNotEmpty();
    assertThat(records).filteredOn(r -> r.value() == null).as("tombstones after deletes").isNotEmpty();
    Map<String, Long> sequences = new HashMap<>();
    values.stream().filter(v -> !v.isEmpty()).forEach(v -> sequences.merge(v.replaceAll(".*\"sequence\":\"(\\[[^]]*])\".*", "$1")
        + v.replaceAll(".*\"txId\":(\\d+).*", "$1"), 1L, Long::sum));
    System.out.printf("PostgresSourceIT: %d change records, %d tombstones, %d sent twice after the crash%n",
        records.size(), records.stream().filter(r -> r.value() == null).count(),
        sequences.values().stream().filter(n -> n > 1).count());
  }

  @Test
  void shouldRefuseToStartWithTheFixWhenTheDatabaseLacksSomething() throws Exception {
    String ok = postgres.createOwner("errs", "owner_errs", "secret");
    try (Connection c = postgres.connect("errs"); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE keyed (id int PRIMARY KEY, name text)");
      s.execute("CREATE TABLE unkeyed (id int, name text)");
      s.execute("ALTER TABLE keyed OWNER TO owner_errs");
      s.execute("ALTER TABLE unkeyed OWNER TO owner_errs");
      s.execute("CREATE ROLE reader LOGIN PASSWORD 'secret'");
      s.execute("GRANT SELECT ON keyed TO reader");
    }
    assertThatThrownBy(() -> SourcedSpecs.load(spec("nope", ok, "public.missing")))
        .hasMessageContaining("the table public.missing does not exist")
        .hasMessageContaining("Fix: create it");
    assertThatThrownBy(() -> SourcedSpecs.load(spec("unkeyed", ok, "unkeyed")))
        .hasMessageContaining("has no primary key")
        .hasMessageContaining("ADD PRIMARY KEY");
    String reader = ok.replace("owner_errs", "reader");
    assertThatThrownBy(() -> start(spec("reader", reader, "keyed")))
        .hasMessageContaining("may not open a replication connection")
        .hasMessageContaining("ALTER ROLE reader WITH REPLICATION");
    try (LocalPostgres replica = LocalPostgres.start("replica")) {
      String url = replica.createOwner("shop", "owner_replica", "secret");
      try (Connection c = replica.connect("shop"); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE keyed (id int PRIMARY KEY, name text)");
        s.execute("ALTER TABLE keyed OWNER TO owner_replica");
      }
      assertThatThrownBy(() -> start(spec("walrep", url, "keyed")))
          .hasMessageContaining("wal_level is 'replica', but capturing changes needs 'logical'")
          .hasMessageContaining("ALTER SYSTEM SET wal_level = logical");
    }
  }

  @Test
  void shouldRunTheDemoWithAPostgresSource() throws Exception {
    Path table = dir.resolve("demo-table");
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int code;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      System.setOut(out);
      code = Main.commandLine().execute("demo", "--source", "postgres", "--exit-when-done", "--data-dir",
          dir.resolve("demo").toString(), "--table", table.toString(), "--http-port", "0", "--bootstrap-servers",
          KAFKA.bootstrapServers());
    } finally {
      System.setOut(original);
    }
    String text = captured.toString(StandardCharsets.UTF_8);
    original.print(text);
    assertThat(code).as(text).isZero();
    assertThat(text).contains("Initial snapshot in the table: 30 versions, 30 current rows")
        .contains("150 transactions on postgresql://dimstream:***@127.0.0.1:").contains("the table equals the database");
    try (Stream<Version> rows = DeltaTable.open(table).latest().scan()) {
      List<Version> all = rows.toList();
      assertThat(all.stream().filter(Version::isCurrent).count()).isPositive();
      assertThat(all.size()).as("versions: the history of 150 transactions").isGreaterThan(60);
    }
  }

  private Path spec(String name, String url, String table) throws Exception {
    return Files.writeString(dir.resolve(name + ".yaml"), """
        name: %s
        source: {postgres: {url: "%s", table: %s}}
        service: {data_dir: %s}
        """.formatted(name, url, table, dir.resolve("data-" + name)));
  }

  private static void start(Path yaml) {
    SourcedSpecs.Sourced s = SourcedSpecs.load(yaml);
    PostgresCapture.start(s.spec(), s.source().orElseThrow(), KAFKA.clientProperties()).close();
  }

  // --- the workload ---------------------------------------------------------------------------------------------

  private void createTables(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text, city text, tier text, bio text)");
      s.execute("ALTER TABLE customers OWNER TO dimstream"); // the owner may create the publication
      s.execute("CREATE TABLE audit (n bigserial PRIMARY KEY, txid bigint NOT NULL, op text NOT NULL, id int,"
          + " name text, city text, tier text, bio text)");
      s.execute("""
          CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF tg_op = 'DELETE' THEN
              INSERT INTO audit (txid, op, id) VALUES (txid_current(), 'd', old.id);
              RETURN old;
            END IF;
            INSERT INTO audit (txid, op, id, name, city, tier, bio)
              VALUES (txid_current(), 'u', new.id, new.name, new.city, new.tier, new.bio);
            RETURN new;
          END $$""");
      s.execute("CREATE TRIGGER customers_audit AFTER INSERT OR UPDATE OR DELETE ON customers"
          + " FOR EACH ROW EXECUTE FUNCTION audit_row()");
    }
  }

  /** {@code count} transactions; returns how many committed. */
  private int workload(Connection c, Connection other, int count, int offset) throws SQLException {
    c.setAutoCommit(false);
    other.setAutoCommit(false);
    for (int i = 0; i < count; i++) {
      int n = offset + i;
      if (n == 300) {
        ddl(c, "ALTER TABLE customers REPLICA IDENTITY FULL");
      } else if (n == 400) {
        ddl(c, "ALTER TABLE customers ADD COLUMN note text");
      } else if (n == 700) {
        ddl(c, "ALTER TABLE customers REPLICA IDENTITY DEFAULT");
      }
      if (n % 25 == 7) {
        interleaved(c, other, n >= 400);
        continue;
      }
      int statements = 1 + random.nextInt(5);
      for (int s = 0; s < statements; s++) {
        statement(c, 1 + random.nextInt(KEYS), n >= 400);
      }
      commit(c);
    }
    return count;
  }

  /**
   * T1 starts first and updates a; T2 updates b and c and commits; T1 then updates b (free now) and commits: b is
   * updated by two interleaved transactions, which commit in the other order than they started.
   */
  private void interleaved(Connection t1, Connection t2, boolean withNote) throws SQLException {
    int a = 1 + random.nextInt(KEYS);
    int b = 1 + random.nextInt(KEYS);
    int cKey = 1 + random.nextInt(KEYS);
    if (a == b || a == cKey) {
      statement(t1, a, withNote);
      commit(t1);
      return;
    }
    update(t1, a, "city", city());
    update(t2, b, "tier", tier());
    update(t2, cKey, "city", city());
    commit(t2);
    update(t1, b, "city", city());
    commit(t1);
  }

  private void statement(Connection c, int id, boolean withNote) throws SQLException {
    int what = random.nextInt(100);
    if (what < 20) {
      insert(c, id); // a re-insert when the key was deleted; nothing when it exists
    } else if (what < 45) {
      update(c, id, random.nextBoolean() ? "city" : "tier", random.nextBoolean() ? city() : tier());
    } else if (what < 65) {
      update(c, id, "name", "name-" + random.nextInt(1000)); // untracked: in place
    } else if (what < 72) {
      exec(c, "UPDATE customers SET name = name WHERE id = " + id); // changes nothing
    } else if (what < 77) {
      update(c, id, "bio", bio()); // untracked, a new TOASTed value
    } else if (what < 90) {
      exec(c, "DELETE FROM customers WHERE id = " + id);
    } else if (withNote) {
      update(c, id, "note", "note-" + random.nextInt(10));
    } else {
      update(c, id, "city", city());
    }
  }

  private void insert(Connection c, int id) throws SQLException {
    exec(c, "INSERT INTO customers (id, name, city, tier, bio) VALUES (" + id + ", 'name-" + id + "', '" + city()
        + "', '" + tier() + "', '" + bio() + "') ON CONFLICT DO NOTHING");
  }

  private void update(Connection c, int id, String column, String value) throws SQLException {
    exec(c, "UPDATE customers SET " + column + " = '" + value + "' WHERE id = " + id);
  }

  private String city() {
    return List.of("Lisbon", "Porto", "Oslo", "Turin", "Kyoto").get(random.nextInt(5));
  }

  private String tier() {
    return List.of("gold", "silver", "bronze").get(random.nextInt(3));
  }

  /** A third of the rows carry 6,000 random letters: stored out of line (TOAST), so unchanged ones are not sent. */
  private String bio() {
    if (random.nextInt(3) > 0) {
      return "short-" + random.nextInt(100);
    }
    StringBuilder b = new StringBuilder(6000);
    for (int i = 0; i < 6000; i++) {
      b.append((char) ('a' + random.nextInt(26)));
    }
    return b.toString();
  }

  private void ddl(Connection c, String sql) throws SQLException {
    exec(c, sql);
    commit(c);
  }

  private void commit(Connection c) throws SQLException {
    long txid;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT txid_current()")) {
      rs.next();
      txid = rs.getLong(1);
    }
    c.commit();
    commitOrder.add(txid);
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private Connection connect() throws SQLException {
    return postgres.connect("shop");
  }

  // --- the oracle and the table, both as key -> rows ------------------------------------------------------------

  /** {@code SELECT * FROM customers}: id -> [name, city, tier, bio]. */
  private Map<Integer, List<String>> databaseRows() throws SQLException {
    Map<Integer, List<String>> out = new TreeMap<>();
    try (Connection c = connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, name, city, tier, bio FROM customers")) {
      while (rs.next()) {
        out.put(rs.getInt(1), List.of(rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)));
      }
    }
    return out;
  }

  /**
   * The type-2 history of the audit, folded in commit order with tracked [city, tier]: per key, each version's
   * attributes and whether the next one follows it without a gap (none after a delete, nor after the open one).
   */
  private Map<Integer, List<String>> auditHistory() throws SQLException {
    Map<Long, Integer> commitIndex = new HashMap<>();
    for (int i = 0; i < commitOrder.size(); i++) {
      commitIndex.put(commitOrder.get(i), i);
    }
    record Image(int commit, long n, String op, int id, List<String> row) {}
    List<Image> audit = new ArrayList<>();
    try (Connection c = connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT n, txid, op, id, name, city, tier, bio FROM audit")) {
      while (rs.next()) {
        Integer commit = commitIndex.get(rs.getLong(2));
        assertThat(commit).as("audit row %d of an unknown transaction", rs.getLong(1)).isNotNull();
        audit.add(new Image(commit, rs.getLong(1), rs.getString(3), rs.getInt(4), List.of(
            String.valueOf(rs.getString(5)), String.valueOf(rs.getString(6)), String.valueOf(rs.getString(7)),
            String.valueOf(rs.getString(8)))));
      }
    }
    audit.sort(Comparator.comparingInt(Image::commit).thenComparingLong(Image::n));
    Map<Integer, List<List<String>>> versions = new TreeMap<>();
    Map<Integer, Boolean> open = new HashMap<>();
    Map<Integer, List<Boolean>> contiguous = new HashMap<>();
    for (Image e : audit) {
      List<List<String>> vs = versions.computeIfAbsent(e.id(), k -> new ArrayList<>());
      List<Boolean> next = contiguous.computeIfAbsent(e.id(), k -> new ArrayList<>());
      boolean isOpen = open.getOrDefault(e.id(), false);
      if (e.op().equals("d")) {
        open.put(e.id(), false);
        continue;
      }
      List<String> last = isOpen ? vs.get(vs.size() - 1) : null;
      if (last != null && last.get(1).equals(e.row().get(1)) && last.get(2).equals(e.row().get(2))) {
        vs.set(vs.size() - 1, e.row()); // untracked columns in place
        continue;
      }
      if (!vs.isEmpty()) {
        next.set(next.size() - 1, isOpen);
      }
      vs.add(e.row());
      next.add(false);
      open.put(e.id(), true);
    }
    Map<Integer, List<String>> out = new TreeMap<>();
    versions.forEach((id, vs) -> {
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < vs.size(); i++) {
        boolean last = i == vs.size() - 1;
        lines.add(line(vs.get(i), last && open.get(id), contiguous.get(id).get(i)));
      }
      out.put(id, lines);
    });
    return out;
  }

  /** The same shape read from the Delta table. */
  private Map<Integer, List<String>> history(DimensionSpec spec) {
    Map<Integer, List<Version>> byKey = new TreeMap<>();
    for (Version v : scan()) {
      byKey.computeIfAbsent(((Number) v.key().values().get(0)).intValue(), k -> new ArrayList<>()).add(v);
    }
    Map<Integer, List<String>> out = new TreeMap<>();
    byKey.forEach((id, vs) -> {
      vs.sort(Comparator.comparing(Version::validFrom));
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < vs.size(); i++) {
        Version v = vs.get(i);
        boolean contiguous = i + 1 < vs.size() && v.validTo() != null && v.validTo().equals(vs.get(i + 1).validFrom());
        lines.add(line(attributes(v), v.isCurrent(), contiguous));
      }
      out.put(id, lines);
    });
    return out;
  }

  private Map<Integer, List<String>> currentRows(DimensionSpec spec) {
    Map<Integer, List<String>> out = new TreeMap<>();
    for (Version v : scan()) {
      if (v.isCurrent()) {
        out.put(((Number) v.key().values().get(0)).intValue(), attributes(v));
      }
    }
    return out;
  }

  private List<Version> scan() {
    Path table = dir.resolve("table");
    if (!Files.exists(table.resolve("_delta_log"))) {
      return List.of();
    }
    try (Stream<Version> rows = DeltaTable.open(table).latest().scan()) {
      return rows.toList();
    }
  }

  /** Attributes in spec order: name, city, tier, bio. */
  private static List<String> attributes(Version v) {
    return v.attributes().stream().map(String::valueOf).toList();
  }

  private static String line(List<String> row, boolean current, boolean followedWithoutGap) {
    List<String> shown = new ArrayList<>(row);
    String bio = shown.get(3);
    shown.set(3, bio.length() > 20 ? bio.substring(0, 8) + "..(" + bio.length() + ")" + bio.hashCode() : bio);
    return shown + (current ? " current" : followedWithoutGap ? " then" : " deleted");
  }

  private void awaitOrFail(ServiceProcess service, Callable<Boolean> condition, String what) throws Exception {
    try {
      await(what).atMost(PHASE_TIMEOUT).pollInterval(Duration.ofSeconds(1))
          .failFast("the service died", () -> !service.isAlive())
          .until(condition);
    } catch (TerminalFailureException e) {
      fail("The service died while waiting for " + what + ":\n" + tail());
    } catch (ConditionTimeoutException e) {
      fail("Timed out after " + PHASE_TIMEOUT.toSeconds() + " s waiting for " + what + " (seed " + seed + "):\n"
          + tail());
    }
  }

  private String tail() throws Exception {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
