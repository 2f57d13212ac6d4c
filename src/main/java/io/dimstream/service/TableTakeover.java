package io.dimstream.service;

import io.dimstream.batch.KeptEvents;
import io.dimstream.compactor.Compactor;
import io.dimstream.compactor.VersionsTopicIdentity;
import io.dimstream.history.StoredEvent;
import io.dimstream.history.TableEvents;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.storage.StoreLease;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.EventArchive;
import io.dimstream.table.Operation;
import io.dimstream.table.Snapshot;
import io.dimstream.table.StateMarkers;
import io.dimstream.topology.EventStoreRecords;
import io.dimstream.topology.TableVersionRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the topology's state hold the table's history before the topology starts: the table is the system of record,
 * the event store and its changelog a cache of it. The table names the changelog its state was built from
 * ({@link StateMarkers}); when the changelog the service finds is not named there (the table was backfilled, the state
 * or the whole Kafka cluster was lost, an older release wrote it) or a batch write changed the table since, the
 * changelog is emptied and every version row becomes the stored events that stand for it ({@link TableEvents}),
 * written to the changelog, which Kafka Streams then restores into RocksDB as after a lost disk. The events a backfill
 * kept beside the table ({@link KeptEvents}) follow the rows' events, then the event store's writes the compactor kept
 * beside it ({@link EventArchive}), in the order the store took them, so the new state is the old one as of the table;
 * everything sent is also written beside the table as a base that stands for the archive before it. A versions topic
 * that does not hold the table's rows (a new cluster's, or beside a backfilled table) gets each of them, marked as
 * from the table, so that its readers find the whole history there (the compactor skips them). Memory stays bounded
 * (rows stream from the table to the producer, the base in parts of 32 MiB), and a takeover killed half-way starts
 * again at the next start: the table names the new changelog and its base only once every record is in them. One instance at a time takes a table over: it holds
 * the lease {@value #TAKEOVER_LEASE} beside the table ({@link StoreLease}), and the others wait, then find the state
 * named in the table.
 */
final class TableTakeover {
  private static final Logger LOG = LoggerFactory.getLogger(TableTakeover.class);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
  /** The lease object, beside the table, that one instance holds while it takes the table over. */
  static final String TAKEOVER_LEASE = "_dimstream/takeover.lease";
  /** A lease not renewed for this long is taken over (renewed every {@link #PROGRESS_EVERY}). */
  static final Duration LEASE_TTL = Duration.ofSeconds(60);
  /** How long the compactor may take to apply what the versions topic holds before the table is read. */
  static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(30);

  private final java.util.OptionalInt versionsSchemaId;
  private final DimensionSpec spec;
  private final DeltaTable table;
  private final StateLayouts layouts;
  private final Map<String, Object> kafka;
  private final String changelog;
  private final int partitions;
  /** The changelog's replication factor; empty: the brokers' default. */
  private final Optional<Short> replication;
  private final Map<String, String> changelogConfig;
  private final Path applicationStateDir;
  private final Supplier<Compactor> compactor;
  private final TakeoverStatus status;
  private final String owner;
  /** The takeover lease while this instance holds it. */
  private volatile StoreLease heldLease;
  /** The event store as the takeover under way writes it, kept beside the table ({@link EventArchive.Base}). */
  private EventArchive.Base base;

  /**
   * @param partitions          the changes topic's partition count: one stream task, one changelog partition each
   * @param replication         the changelog's replication factor (Kafka Streams' {@code replication.factor});
   *                            -1 for the brokers' default
   * @param changelogConfig     topic configs of the changelog as Kafka Streams would create it
   * @param applicationStateDir this instance's Kafka Streams state of the application ({@code state.dir/<app id>})
   * @param owner               this instance, as it holds table leases (host and data directory)
   * @param versionsSchemaId    the registered version schema's id when version records are framed in the Confluent
   *                            wire format, as the topology writes them
   */
  TableTakeover(DimensionSpec spec, DeltaTable table, StateLayouts layouts, Map<String, Object> kafka,
      String applicationId, int partitions, short replication, Map<String, String> changelogConfig,
      Path applicationStateDir, Supplier<Compactor> compactor, TakeoverStatus status, String owner,
      java.util.OptionalInt versionsSchemaId) {
    this.versionsSchemaId = versionsSchemaId;
    this.spec = spec;
    this.table = table;
    this.layouts = layouts;
    this.kafka = Map.copyOf(kafka);
    this.changelog = EventStoreRecords.changelogTopic(applicationId);
    this.partitions = partitions;
    this.replication = replication > 0 ? Optional.of(replication) : Optional.empty();
    this.changelogConfig = Map.copyOf(changelogConfig);
    this.applicationStateDir = applicationStateDir;
    this.compactor = compactor;
    this.status = status;
    this.owner = owner;
  }

  /**
   * Takes the table over when the state does not hold its history, and records in the table which changelog holds it.
   * Returns after the changelog holds every row; the topology restores it when it starts.
   *
   * @return whether a takeover ran
   */
  boolean ensure() throws InterruptedException {
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      boolean toldWaiting = false;
      while (true) {
        if (findReason(admin, false).isEmpty()) {
          return false;
        }
        // one instance takes the table over; the others wait for it and then find the state named in the table
        StoreLease.Attempt attempt = lease();
        if (attempt.lease() == null) {
          if (!toldWaiting) {
            LOG.info("Takeover of {}: {} holds {} and takes the table over; waiting for it", spec.name(),
                attempt.holder(), TAKEOVER_LEASE);
            toldWaiting = true;
          }
          status.phase("waiting for " + attempt.holder() + ", which takes the table over");
          Thread.sleep(1_000);
          continue;
        }
        try (StoreLease held = attempt.lease()) {
          heldLease = held;
          Optional<String> reason = findReason(admin, true); // the other instance may have finished meanwhile
          if (reason.isEmpty()) {
            return false;
          }
          takeOver(admin, reason.get());
          return true;
        } finally {
          heldLease = null;
        }
      }
    } finally {
      status.done();
    }
  }

  /**
   * Why the state must be rebuilt from the table now, or empty when it holds the table's history.
   *
   * @param holdsLease whether this instance holds the takeover lease; only then may it record in the table that the
   *     state it found holds the table's history (without, it answers with a reason, to take the lease first)
   */
  private Optional<String> findReason(Admin admin, boolean holdsLease) throws InterruptedException {
    Optional<TopicDescription> existing = describe(admin);
    boolean hadRecords = existing.isPresent() && hasRecords(admin);
    String id = existing.isPresent() ? existing.get().topicId().toString() : create(admin);
    return reason(table.latest(), id, hadRecords, holdsLease);
  }

  private StoreLease.Attempt lease() {
    try {
      return StoreLease.tryAcquire(table.store(), TAKEOVER_LEASE, owner, LEASE_TTL, Clock.systemUTC());
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not take the lease " + TAKEOVER_LEASE + ": " + e);
    }
  }

  /** Renews the takeover lease; stops the takeover if another instance took the lease meanwhile. */
  private void heartbeat() {
    StoreLease held = heldLease;
    if (held == null) {
      return;
    }
    try {
      Optional<String> other = held.renew();
      if (other.isPresent()) {
        throw ServiceErrors.takeoverFailed(spec, changelog, other.get() + " took the lease " + held.describe()
            + " while this instance was taking the table over (a pause longer than " + LEASE_TTL.toSeconds()
            + " s?)");
      }
    } catch (IOException e) {
      LOG.warn("Could not renew the takeover lease {}: {}", held.describe(), e.toString());
    }
  }

  /**
   * Why the state in the changelog {@code changelogId} does not hold the table's history, or empty when it does (and
   * the table then names it, recorded here for a table that did not yet).
   */
  private Optional<String> reason(Snapshot s, String changelogId, boolean changelogHasRecords,
      boolean holdsLease) {
    long builtFrom = s.txnVersion(StateMarkers.state(spec.name(), changelogId));
    if (builtFrom >= 0) {
      long batch = s.txnVersion(StateMarkers.batch(spec.name()));
      if (batch >= 0 && batch != table.snapshotAt(builtFrom).txnVersion(StateMarkers.batch(spec.name()))) {
        return Optional.of("a batch write changed the table after version " + builtFrom
            + ", which the state was built from");
      }
      LOG.info("The state of {} in {} holds the table's history (built from table version {}): no takeover",
          spec.name(), changelog, builtFrom);
      return Optional.empty();
    }
    boolean tableHasRows = s.fileCount() > 0;
    boolean namesOtherState = s.txnVersions().keySet().stream()
        .anyMatch(app -> app.startsWith(StateMarkers.statePrefix(spec.name())));
    if (!tableHasRows || (!namesOtherState && changelogHasRecords)) {
      // a new table, or one an earlier release kept from this very state: the state holds all of it (naming the state
      // of an empty table needs no lease: there is nothing to take over, and every instance names the same state)
      if (tableHasRows && !holdsLease) {
        return Optional.of("the table does not name its state yet");
      }
      record(s.version(), changelogId);
      LOG.info("The table of {} names the state in {} (topic id {}) as built from table version {}{}", spec.name(),
          changelog, changelogId, s.version(), tableHasRows ? " (state kept by an earlier release)" : "");
      return Optional.empty();
    }
    if (s.txnVersion(StateMarkers.takeoverStarted(spec.name(), changelogId)) >= 0) {
      return Optional.of("a takeover into this changelog did not finish");
    }
    return Optional.of(namesOtherState ? "its state was built in another Kafka cluster, or lost"
        : "the table was written without this state (a backfill, a snapshot, another cluster)");
  }

  private void takeOver(Admin admin, String reason) throws InterruptedException {
    status.started(reason);
    LOG.info("Taking over the table of {} at {}: {}", spec.name(), table.location(), reason);
    awaitCompactor();
    String id;
    if (hasRecords(admin)) {
      status.phase("emptying the state");
      id = recreate(admin);
    } else {
      id = described(admin);
    }
    wipeLocalState();
    Snapshot s = table.latest();
    long rows = s.rowCount();
    heartbeat();
    // so that a later start never mistakes what this takeover leaves half-written for a state to keep
    table.newCommit(Operation.MERGE).txns(Map.of(StateMarkers.takeoverStarted(spec.name(), id), s.version()))
        .apply(List.of());
    EventStoreRecords records = new EventStoreRecords(spec, layouts, partitions);
    Optional<KeptEvents.Kept> kept = keptByBackfill(s);
    List<io.dimstream.storage.ObjectInfo> archived = archiveFiles(); // listed before the base adds its own parts
    base = new EventArchive.Base(table.store(), spec.name(), s.version());
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      AtomicReference<Exception> failed = new AtomicReference<>();
      // closing deletes first: a version that starts where another ended replaces the delete stored there
      status.phase("writing the deletes that closed versions (1 of 4)", s.version(), s.closedRowCount());
      send(producer, records, s::closed, v -> TableEvents.closing(v, spec.history()), null, failed);
      TableVersionRecords replay = versionsReplay(admin, s);
      status.phase("writing the upserts that opened versions" + (replay == null ? "" : ", and every version to "
          + spec.topics().versions() + ", which does not hold them,") + " (2 of 4)", s.version(), rows);
      send(producer, records, s::scan, v -> Optional.of(TableEvents.opening(v)), replay, failed);
      // then: an event kept at the sequence of a row's derived one is the one the engine stored there
      kept.ifPresent(k -> sendKept(producer, records, k, s.version(), failed));
      // last, in the order the event store took them: every write of the topologies that ran on this table since
      sendArchived(producer, records, s, archived, failed);
      producer.flush();
      if (failed.get() != null) {
        throw ServiceErrors.takeoverFailed(spec, changelog, failed.get().toString());
      }
      base.finish();
    } catch (IOException | RuntimeException e) {
      base.abort();
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not write the event store's base under "
          + table.store().describe(EventArchive.DIR) + ": " + e);
    }
    heartbeat();
    // the state and its base in one commit: from it on, the base stands for every archive file before it
    table.newCommit(Operation.MERGE).txns(Map.of(StateMarkers.state(spec.name(), id), s.version(),
        base.appId(), s.version())).apply(List.of());
    try {
      int deleted = base.deleteEarlier();
      LOG.info("Kept the event store's {} records beside the table as the base of table version {}; deleted {} "
          + "earlier archive file(s) it stands for", base.records(), s.version(), deleted);
    } catch (IOException e) {
      LOG.warn("Could not delete the archive files the new base of {} stands for (they are read again, to no effect, "
          + "by a later takeover): {}", spec.name(), e.toString());
    }
    LOG.info("Took over table version {} of {} in {} s: {} rows into {} (topic id {})", s.version(), spec.name(),
        status.elapsedMillis() / 1000, rows, changelog, id);
  }

  /** The horizon as a spec writes it: {@code 30d} for a timestamp or date sequence, the number otherwise. */
  static String horizonText(DimensionSpec spec, long horizon) {
    if (horizon == Long.MAX_VALUE) {
      return "unbounded";
    }
    io.dimstream.types.ColumnType.Kind kind = spec.sequenceColumns().get(0).type().kind();
    long perDay = kind == io.dimstream.types.ColumnType.Kind.TIMESTAMP ? 86_400_000_000L
        : kind == io.dimstream.types.ColumnType.Kind.DATE ? 1 : 0;
    if (perDay > 0 && horizon % perDay == 0) {
      return horizon / perDay + "d";
    }
    return kind == io.dimstream.types.ColumnType.Kind.TIMESTAMP ? horizon / 1000 + "ms" : Long.toString(horizon);
  }

  /**
   * The events the backfill that wrote the table kept beside it, when they are of this table's history (kept by a
   * commit the snapshot holds). Events the store later stored again or pruned follow them in the archive, so they
   * stay right to replay first at every takeover.
   */
  private Optional<KeptEvents.Kept> keptByBackfill(Snapshot s) {
    try {
      return KeptEvents.find(table.store()).filter(k -> k.tableVersion() <= s.version());
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not read the events the backfill kept under "
          + table.store().describe(KeptEvents.DIR) + ": " + e);
    }
  }

  private void sendKept(KafkaProducer<byte[], byte[]> producer, EventStoreRecords records, KeptEvents.Kept kept,
      long tableVersion, AtomicReference<Exception> failed) {
    status.phase("writing the events the backfill kept, which the rows do not show (3 of 4)", tableVersion,
        kept.events());
    Callback onFailure = keepingFirst(failed);
    try {
      kept.forEach((key, value) -> {
        EventStoreRecords.ChangelogRecord r = records.of(key, value);
        toChangelog(producer, r, onFailure);
        status.rowRead();
      });
      LOG.info("Took over {} events the backfill kept beside the table, which its rows do not show", kept.events());
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not read the events the backfill kept under "
          + table.store().describe(KeptEvents.DIR) + ": " + e);
    }
  }

  /**
   * Sends the event store's writes the compactor kept beside the table ({@link EventArchive}), those the snapshot's
   * markers cover, in the order the store took them: what the rows cannot show (no-change upserts, a type-1 column's
   * earlier values, deletes with nothing open, the events pruned since) then stands in the state as it stood.
   */
  private void sendArchived(KafkaProducer<byte[], byte[]> producer, EventStoreRecords records, Snapshot s,
      List<io.dimstream.storage.ObjectInfo> archived, AtomicReference<Exception> failed) {
    status.phase("writing the event store's writes kept beside the table (4 of 4)", s.version(), -1);
    Callback onFailure = keepingFirst(failed);
    try {
      EventArchive.Replayed r = EventArchive.forEach(table.store(), archived, s::txnVersion, e -> {
        EventStoreRecords.ChangelogRecord c = records.of(e.key(), e.value());
        toChangelog(producer, c, onFailure);
        status.rowRead();
        if (failed.get() != null) {
          throw ServiceErrors.takeoverFailed(spec, changelog, failed.get().toString());
        }
      });
      LOG.info("Took over {} event-store writes kept beside the table in {} file(s) ({} not covered by table version {}"
          + " or read twice)", r.applied(), r.files(), r.skipped(), s.version());
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not read the event store's writes kept under "
          + table.store().describe(EventArchive.DIR) + ": " + e);
    }
  }

  /** Waits until the compactor applied what the versions topic holds: the table must be complete before it is read. */
  private void awaitCompactor() throws InterruptedException {
    long deadline = System.nanoTime() + CATCH_UP_TIMEOUT.toNanos();
    long nextLog = System.nanoTime() + PROGRESS_EVERY.toNanos();
    while (true) {
      Compactor c = compactor.get();
      if (c != null && c.failure() instanceof io.dimstream.compactor.LeaseHeldException) {
        LOG.warn("Takeover of {} does not wait for the compactor: another instance holds the table's lease and"
            + " applies the versions topic", spec.name());
        return;
      }
      if (c != null && c.failure() != null) {
        throw ServiceErrors.takeoverFailed(spec, changelog, "the compactor failed before it applied the versions topic: "
            + c.failure().getMessage());
      }
      if (c != null && c.isCaughtUp()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw ServiceErrors.takeoverFailed(spec, changelog, "the compactor did not apply the versions topic within "
            + CATCH_UP_TIMEOUT.toMinutes() + " minutes (lag " + (c == null ? -1 : c.lag()) + " records)");
      }
      if (System.nanoTime() > nextLog) {
        heartbeat();
        LOG.info("Takeover of {} waits for the compactor to apply the versions topic (lag {} records)", spec.name(),
            c == null ? -1 : c.lag());
        nextLog = System.nanoTime() + PROGRESS_EVERY.toNanos();
      }
      Thread.sleep(100);
    }
  }

  /**
   * Sends, for each row {@code scan} gives, the stored event {@code events} makes of it to the changelog, and the row
   * itself to the versions topic when {@code replay} is not null.
   */
  private void send(KafkaProducer<byte[], byte[]> producer, EventStoreRecords records,
      Supplier<Stream<Version>> scan, Function<Version, Optional<StoredEvent>> events, TableVersionRecords replay,
      AtomicReference<Exception> failed) {
    long nextLog = System.nanoTime() + PROGRESS_EVERY.toNanos();
    Callback onFailure = keepingFirst(failed);
    try (Stream<Version> rows = scan.get()) {
      for (var it = rows.iterator(); it.hasNext(); ) {
        Version row = it.next();
        Optional<StoredEvent> e = events.apply(row);
        status.rowRead();
        if (e.isPresent()) {
          EventStoreRecords.ChangelogRecord r = records.of(e.get());
          toChangelog(producer, r, onFailure);
        }
        if (replay != null) {
          producer.send(replay.of(row).toSend(spec.topics().versions()), onFailure);
        }
        if (failed.get() != null) {
          throw ServiceErrors.takeoverFailed(spec, changelog, failed.get().toString());
        }
        if (System.nanoTime() > nextLog) {
          heartbeat();
          status.describe().ifPresent(d -> LOG.info("{}: {}", spec.name(), d));
          nextLog = System.nanoTime() + PROGRESS_EVERY.toNanos();
        }
      }
    }
  }

  private List<io.dimstream.storage.ObjectInfo> archiveFiles() {
    try {
      return EventArchive.files(table.store());
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not list the event store's writes kept under "
          + table.store().describe(EventArchive.DIR) + ": " + e);
    }
  }

  /** Sends one record to the new changelog, and keeps it in the archive's base the takeover writes beside it. */
  private void toChangelog(KafkaProducer<byte[], byte[]> producer, EventStoreRecords.ChangelogRecord r,
      Callback onFailure) {
    producer.send(new ProducerRecord<>(changelog, r.partition(), r.key(), r.value()), onFailure);
    try {
      base.add(r.key(), r.value());
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not write the event store's base under "
          + table.store().describe(EventArchive.DIR) + ": " + e);
    }
  }

  /** A send callback that keeps the first failure in {@code failed}, for the sender to stop on. */
  private static Callback keepingFirst(AtomicReference<Exception> failed) {
    return (md, ex) -> {
      if (ex != null) {
        failed.compareAndSet(null, ex);
      }
    };
  }

  /**
   * The table's rows as records for a versions topic that does not hold them (a new cluster's, or beside a backfilled
   * table), so that its readers find the table's history there; null when the topic is the one the table's offsets
   * name.
   */
  private TableVersionRecords versionsReplay(Admin admin, Snapshot s) throws InterruptedException {
    String topic = spec.topics().versions();
    try {
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      d.partitions().forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      Map<Integer, Long> ends = new HashMap<>();
      admin.listOffsets(latest).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .forEach((tp, o) -> ends.put(tp.partition(), o.offset()));
      VersionsTopicIdentity identity = new VersionsTopicIdentity(spec.name(), topic, d.topicId());
      return VersionsTopicIdentity.tableFollows(identity, s, ends) ? null
          : new TableVersionRecords(spec, d.partitions().size(), versionsSchemaId);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not read the versions topic " + topic + ": " + e);
    }
  }

  /** Records in the table that the state in the changelog {@code changelogId} was built from table version {@code v}. */
  private void record(long v, String changelogId) {
    table.newCommit(Operation.MERGE).txns(Map.of(StateMarkers.state(spec.name(), changelogId), v)).apply(List.of());
  }

  private KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 50);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    String maxBytes = changelogConfig.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    if (maxBytes != null) {
      p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.parseInt(maxBytes));
    }
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "dimstream-" + spec.name() + "-takeover");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private Optional<TopicDescription> describe(Admin admin) throws InterruptedException {
    try {
      return Optional.of(admin.describeTopics(List.of(changelog)).allTopicNames()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(changelog));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not describe it: " + e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "describing it timed out");
    }
  }

  private boolean hasRecords(Admin admin) throws InterruptedException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(changelog, p), OffsetSpec.latest());
    }
    try {
      return admin.listOffsets(latest).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).values().stream()
          .anyMatch(o -> o.offset() > 0);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not read its end offsets: " + e);
    }
  }

  /**
   * Creates the changelog as Kafka Streams would (compacted, one partition per task) and returns its topic id; when
   * another instance created it first, returns the id of theirs.
   */
  private String create(Admin admin) throws InterruptedException {
    long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
    while (true) {
      try {
        NewTopic topic = new NewTopic(changelog, Optional.of(partitions), replication).configs(changelogConfig);
        String id = admin.createTopics(List.of(topic)).topicId(changelog)
            .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).toString();
        LOG.info("Created the state's changelog topic {} ({} partitions, topic id {})", changelog, partitions, id);
        return id;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
          throw ServiceErrors.takeoverFailed(spec, changelog, "could not create it: " + e.getCause());
        }
        Optional<TopicDescription> theirs = describe(admin);
        if (theirs.isPresent()) {
          return theirs.get().topicId().toString();
        }
        Thread.sleep(200); // it was being deleted
      } catch (java.util.concurrent.TimeoutException e) {
        throw ServiceErrors.takeoverFailed(spec, changelog, "creating it timed out");
      }
    }
  }

  /**
   * The changelog's topic id; it was created moments ago, and a broker's metadata may not show a new topic at once.
   */
  private String described(Admin admin) throws InterruptedException {
    long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
    while (true) {
      Optional<TopicDescription> d = describe(admin);
      if (d.isPresent()) {
        return d.get().topicId().toString();
      }
      if (System.nanoTime() > deadline) {
        throw ServiceErrors.takeoverFailed(spec, changelog, "it was created, but the brokers did not show it within "
            + ADMIN_TIMEOUT.toSeconds() + " s");
      }
      Thread.sleep(200);
    }
  }

  /**
   * Deletes the changelog and creates it anew, empty (Kafka cannot truncate a compacted topic); returns its new id.
   */
  private String recreate(Admin admin) throws InterruptedException {
    try {
      admin.deleteTopics(List.of(changelog)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not delete it: " + e);
    }
    long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
    while (describe(admin).isPresent()) { // deleted topics leave the cluster's metadata a moment later
      if (System.nanoTime() > deadline) {
        throw ServiceErrors.takeoverFailed(spec, changelog, "it was still there a minute after its deletion");
      }
      Thread.sleep(200);
    }
    return create(admin);
  }

  /**
   * Deletes this instance's local Kafka Streams state of the application: its checkpoints name offsets of the
   * changelog that was emptied, and a store restored from them would hold state the table does not.
   */
  private void wipeLocalState() {
    if (!Files.exists(applicationStateDir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(applicationStateDir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw ServiceErrors.takeoverFailed(spec, changelog, "could not delete the local state in "
          + applicationStateDir + ": " + e);
    }
  }
}
