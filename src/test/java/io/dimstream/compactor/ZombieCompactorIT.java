package io.dimstream.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.broker.BrokerExtension;
import io.dimstream.codec.VersionJson;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.service.CatchUp;
import io.dimstream.storage.ForwardingStore;
import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.CommitSummary;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.TableOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A zombie compactor: compactor A reads a batch of a versions partition and is paused right before it commits (as
 * a GC pause or a frozen host would pause it) for longer than its poll and session timeouts; the consumer group gives
 * the partition to compactor B, which commits; then A wakes up and tries to commit its stale batch. Real components:
 * the embedded broker and its consumer group, a Delta table on disk that each compactor opens on its own, as two
 * service instances would.
 *
 * <p>Whatever B committed, A must write nothing, and the table must hold every version of the topic once: the table's
 * history applies each of the topic's records in exactly one commit (every record is its own version identity, so a
 * commit's {@code numSourceRows} counts the records it applied).
 */
class ZombieCompactorIT {
  @RegisterExtension
  static final BrokerExtension KAFKA = new BrokerExtension();

  /** Records on the versions topic: one version of its own key each, so a commit applies as many rows as records. */
  private static final int RECORDS = 40;
  private static final Duration WAIT = Duration.ofMinutes(1);
  private static final Map<String, String> APP_IDS = new java.util.concurrent.ConcurrentHashMap<>();

  @TempDir
  Path dir;

  private final List<Compactor> compactors = new ArrayList<>();
  private final List<Gate> gates = new ArrayList<>();

  @AfterEach
  void stopCompactors() {
    gates.forEach(Gate::open);
    compactors.forEach(c -> c.stop(Duration.ofSeconds(30)));
  }

  @Test
  void shouldRefuseAZombieBatchThatTheNewOwnerHasCommittedInFull() throws Exception {
    DimensionSpec spec = spec("zombie_full");
    Gate aCommit = gate(1);
    Compactor a = start(spec, "a:/zombie", table(spec), new Pauses(aCommit, null), zombieKafka());
    aCommit.awaitArrival();

    Compactor b = start(spec, "b:/successor", table(spec), CommitProbe.NONE, successorKafka(false));
    assertThat(CatchUp.await(() -> recorded(spec) == RECORDS - 1, WAIT)).as("B took the partition and committed")
        .isTrue();

    aCommit.open();
    awaitZombie(a);
    assertEveryRecordAppliedOnceAndTheZombieRefused(spec, a, b);
  }

  @Test
  void shouldRefuseAZombieBatchThatRunsPastTheNewOwnersCommit() throws Exception {
    DimensionSpec spec = spec("zombie_overlap");
    Gate aCommit = gate(1);
    Pauses aPauses = new Pauses(aCommit, null);
    Compactor a = start(spec, "a:/zombie", table(spec), aPauses, zombieKafka());
    aCommit.awaitArrival();

    // B reads a record per fetch: its first commit covers fewer offsets than A's batch; its second one waits
    Gate bSecondCommit = gate(2);
    Compactor b = start(spec, "b:/successor", table(spec), new Pauses(bSecondCommit, null), successorKafka(true));
    bSecondCommit.awaitArrival();
    long bCommitted = recorded(spec);
    assertThat(bCommitted).as("B's first commit overlaps the start of A's batch and ends before its end")
        .isGreaterThanOrEqualTo(0).isLessThan(aPauses.heldTxns.get().get(appId(spec)));

    aCommit.open();
    awaitZombie(a);
    bSecondCommit.open();
    assertEveryRecordAppliedOnceAndTheZombieRefused(spec, a, b);
  }

  @Test
  void shouldRefuseAZombieBatchThatRacesTheNewOwnerForOneTableVersion() throws Exception {
    DimensionSpec spec = spec("zombie_race");
    Path table = spec.service().tablePath().localPath();
    long created = DeltaTable.openOrCreate(new LocalStore(table), spec).latest().version();
    // A plans its commit on the table as it is now and is paused writing the next version's log entry
    Gate aLogWrite = gate(1);
    DeltaTable aTable = DeltaTable.openOrCreate(new GatedStore(new LocalStore(table), aLogWrite), spec,
        spec.tableProperties(), TableOptions.defaults());
    Compactor a = start(spec, "a:/zombie", aTable, CommitProbe.NONE, zombieKafka());
    aLogWrite.awaitArrival();

    Gate bSecondCommit = gate(2);
    Compactor b = start(spec, "b:/successor", table(spec), new Pauses(bSecondCommit, null), successorKafka(true));
    bSecondCommit.awaitArrival();
    DeltaTable view = DeltaTable.open(table);
    assertThat(view.latest().version()).as("B took the version A is about to write").isEqualTo(created + 1);

    aLogWrite.open();
    awaitZombie(a);
    bSecondCommit.open();
    assertEveryRecordAppliedOnceAndTheZombieRefused(spec, a, b);
  }

  @Test
  void shouldRefuseAZombieThatTheGroupHasRemovedBeforeTheNewOwnerCommits() throws Exception {
    DimensionSpec spec = spec("zombie_generation");
    // A is paused right before it asks the group, after its read of the table's offsets, which B has not moved yet
    Gate aBeforeGroup = gate(1);
    Compactor a = start(spec, "a:/zombie", table(spec), new Pauses(null, aBeforeGroup), zombieKafka());
    aBeforeGroup.awaitArrival();

    Gate bFirstCommit = gate(1);
    Compactor b = start(spec, "b:/successor", table(spec), new Pauses(bFirstCommit, null), successorKafka(false));
    bFirstCommit.awaitArrival();
    assertThat(recorded(spec)).as("nothing in the table yet").isEqualTo(-1);

    aBeforeGroup.open();
    awaitZombie(a);
    bFirstCommit.open();
    assertEveryRecordAppliedOnceAndTheZombieRefused(spec, a, b);
    assertThat(a.failure()).hasMessageContaining("no longer a member of the current generation");
  }

  /** Waits until the zombie's commit attempt is over: refused, or (what must not happen) committed. */
  private static void awaitZombie(Compactor a) throws InterruptedException {
    assertThat(CatchUp.await(() -> a.failure() != null || a.commits() > 0, WAIT))
        .as("the zombie's commit attempt ended").isTrue();
  }

  private void assertEveryRecordAppliedOnceAndTheZombieRefused(DimensionSpec spec, Compactor a, Compactor b)
      throws Exception {
    assertThat(CatchUp.await(() -> recorded(spec) == RECORDS - 1 || b.failure() != null, WAIT))
        .as("the table records the topic's last offset").isTrue();
    // the owner counts a batch once its commit has returned, which on a busy machine is after the table shows it
    CatchUp.await(() -> b.recordsApplied() >= RECORDS || b.failure() != null, WAIT);
    DeltaTable table = DeltaTable.open(spec.service().tablePath().localPath());
    long applied = 0;
    for (CommitSummary c : table.history()) {
      if (c.operation().equals("MERGE")) {
        applied += Long.parseLong(c.operationMetrics().getOrDefault("numSourceRows", "0"));
      }
    }
    assertThat(applied).as("records applied over the table's whole history").isEqualTo(RECORDS);
    List<Version> rows;
    try (Stream<Version> scan = table.latest().scan()) {
      rows = scan.sorted(Comparator.comparing(v -> (Long) v.key().values().get(0))).toList();
    }
    assertThat(rows).as("every version of the topic, once").containsExactlyElementsOf(expectedVersions());

    assertThat(a.failure()).as("the zombie is refused").isInstanceOf(LeaseHeldException.class);
    assertThat(a.commits()).as("commits of the zombie").isZero();
    assertThat(a.recordsApplied()).as("records the zombie claims to have applied").isZero();
    assertThat(b.failure()).as("the partition's owner keeps running").isNull();
    assertThat(b.recordsApplied()).as("records the owner applied").isEqualTo(RECORDS);
  }

  /**
   * A one-partition dimension {@code name} under {@code dir} whose compactor commits every 5 records or every second;
   * shared by the compactor ITs that drive compactors directly.
   */
  static DimensionSpec compactorSpec(Path dir, String name) throws Exception {
    Path file = dir.resolve(name + ".yaml");
    Files.writeString(file, """
        name: %s
        columns:
          id: long
          name: string
          updated_at: timestamp
        key: [id]
        sequence: [updated_at]
        service:
          data_dir: %s
          table_path: %s
          partitions: 1
          compaction: {interval: 1s, max_records: 5}
        """.formatted(name, dir.resolve(name + "-data"), dir.resolve(name + "-table")));
    return DimensionSpecLoader.load(file);
  }

  private DimensionSpec spec(String name) throws Exception {
    DimensionSpec spec = compactorSpec(dir, name);
    try (Admin admin = Admin.create(KAFKA.clientProperties())) {
      admin.createTopics(List.of(new NewTopic(spec.topics().versions(), 1, (short) 1))).all().get();
    }
    VersionJson json = new VersionJson(spec);
    Map<String, Object> props = KAFKA.clientProperties();
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    props.put("linger.ms", "0");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (Version v : expectedVersions()) {
        // one record per produce request: one record batch each, which a successor with tiny fetches reads singly
        producer.send(new ProducerRecord<>(spec.topics().versions(), 0, json.encodeKey(v.key(), v.validFrom()),
            json.encodeValue(v, ChangeKind.OPEN))).get();
      }
    }
    return spec;
  }

  private static List<Version> expectedVersions() {
    List<Version> out = new ArrayList<>();
    for (long id = 1; id <= RECORDS; id++) {
      out.add(new Version(BusinessKey.of(id), Sequence.of(1_700_000_000_000_000L + id), null, List.of("n" + id)));
    }
    return out;
  }

  /** A paused compactor: polls no more, so after its poll timeout its heartbeats stop and its session expires. */
  private static Map<String, Object> zombieKafka() {
    Map<String, Object> p = KAFKA.clientProperties();
    p.put("max.poll.interval.ms", "3000");
    p.put("session.timeout.ms", "6000");
    p.put("heartbeat.interval.ms", "1000");
    return p;
  }

  /** The successor; with {@code singleRecords} each fetch returns one record batch (one record here). */
  private static Map<String, Object> successorKafka(boolean singleRecords) {
    Map<String, Object> p = KAFKA.clientProperties();
    p.put("max.poll.interval.ms", "20000");
    p.put("session.timeout.ms", "6000");
    p.put("heartbeat.interval.ms", "1000");
    if (singleRecords) {
      p.put("fetch.max.bytes", "1");
      p.put("max.partition.fetch.bytes", "1");
    }
    return p;
  }

  /** The table as one service instance opens it: each compactor its own instance. */
  private static DeltaTable table(DimensionSpec spec) {
    return Compactor.openTable(spec);
  }

  private Compactor start(DimensionSpec spec, String owner, DeltaTable table, CommitProbe pauses,
      Map<String, Object> kafka) {
    Compactor c = new Compactor(spec, table, new VersionJson(spec)::decodeChange, kafka, owner, Clock.systemUTC());
    c.probe(pauses);
    compactors.add(c);
    Thread t = new Thread(() -> {
      try {
        c.run();
      } catch (RuntimeException e) {
        // kept as the compactor's failure()
      }
    }, "compactor-" + owner);
    t.setDaemon(true);
    t.start();
    return c;
  }

  private Gate gate(int atCall) {
    Gate g = new Gate(atCall);
    gates.add(g);
    return g;
  }

  /** The appId of the versions partition's marker: it names the topic's id, asked once per topic. */
  private static String appId(DimensionSpec spec) {
    return APP_IDS.computeIfAbsent(spec.topics().versions(), topic -> new VersionsTopicIdentity(spec.name(), topic,
        VersionsTopicIdentity.topicId(KAFKA.clientProperties(), topic)).appId(0));
  }

  /** The offset the table records for the versions partition, -1 for none. */
  private static long recorded(DimensionSpec spec) {
    Path table = spec.service().tablePath().localPath();
    if (!Files.isDirectory(table.resolve("_delta_log"))) {
      return -1;
    }
    return DeltaTable.open(table).txnVersion(appId(spec));
  }

  /** Holds the {@code atCall}-th call of what it guards until the test opens it. */
  private static final class Gate {
    private final int atCall;
    private final AtomicInteger calls = new AtomicInteger();
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);

    Gate(int atCall) {
      this.atCall = atCall;
    }

    void pass() {
      if (calls.incrementAndGet() == atCall) {
        arrived.countDown();
        try {
          opened.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    void awaitArrival() throws InterruptedException {
      assertThat(arrived.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the compactor reached the gate").isTrue();
    }

    void open() {
      opened.countDown();
    }
  }

  /** Pauses a compactor's table commits, or its questions to the group, at a gate; null: no gate. */
  private static final class Pauses implements CommitProbe {
    private final Gate commits;
    private final Gate groupChecks;
    final java.util.concurrent.atomic.AtomicReference<Map<String, Long>> heldTxns =
        new java.util.concurrent.atomic.AtomicReference<>();

    Pauses(Gate commits, Gate groupChecks) {
      this.commits = commits;
      this.groupChecks = groupChecks;
    }

    @Override
    public void beforeGroupCheck(VersionBatch batch) {
      if (groupChecks != null) {
        groupChecks.pass();
      }
    }

    @Override
    public void beforeTableCommit(VersionBatch batch) {
      heldTxns.compareAndSet(null, Map.copyOf(batch.txns()));
      if (commits != null) {
        commits.pass();
      }
    }
  }

  /** A store whose writes of commit files (the table's log entries) pass a gate. */
  private static final class GatedStore extends ForwardingStore {
    private final Gate logWrites;

    GatedStore(ObjectStore store, Gate logWrites) {
      super(store);
      this.logWrites = logWrites;
    }

    @Override
    public boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException {
      if (key.contains("_delta_log/") && key.endsWith(".json")) {
        logWrites.pass();
      }
      return store.putIfAbsent(key, content, modifiedMillis);
    }
  }
}
