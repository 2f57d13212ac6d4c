package io.dimstream.compactor;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SizePolicy;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.TableOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the versions topic ({@code read_committed}) and merges what it read into the table every
 * {@code compaction.interval} or {@code compaction.max_records}, whichever comes first, in one commit.
 *
 * <p>Exactly once from topic to table: each commit carries, per partition, a {@code txn} action with appId
 * {@code <dim>-versions-<topicId>-<partition>} and the last offset applied; on start every partition is positioned
 * right after the offset the table records for this incarnation of the topic ({@link VersionsTopicIdentity}: a topic
 * deleted and created again starts from its beginning), never the consumer group's offsets, which are committed
 * afterwards only as a convenience for monitoring tools. A crash between the table commit and anything else re-reads
 * at most what the table already holds, which the txn markers turn into a no-op.
 *
 * <p>On a merge-on-read table several compactors (service instances) may write one table: they join the consumer
 * group {@code <dim>-compactor}, which shares the partitions among them; each commit writes the new rows of a
 * partition to files owned by it, and concurrent commits that touch disjoint files both land. A copy-on-write table
 * keeps one compactor, which holds the table's lease and reads every partition.
 *
 * <p>This class runs the loop; its parts each do one job: {@link VersionsConsumer} (the consumer and the topic),
 * {@link PartitionAssignment} and {@link GroupRebalance} (which partitions, read from where), {@link TrustedMarkers}
 * (which of the table's offsets are of this topic incarnation, {@link VersionsTopicIdentity}), {@link VersionIntake}
 * (records to changes, bad ones to the dead-letter topic), {@link BatchFence} and {@link BatchCommitter} (zombie
 * checks, the table commit), {@link CompactionSchedule} and {@link CompactionCycle} (background compaction), and
 * {@link CompactorProgress} (lag and counters).
 */
public final class Compactor implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  private final DimensionSpec spec;
  private final DeltaTable table;
  private final VersionRecordDecoder decoder;
  private final Map<String, Object> kafka;
  private final Duration interval;
  private final int maxRecords;
  private final Clock clock;
  private final String owner;
  private final SizePolicy sizes;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final CompactorProgress progress;
  private final PartitionAssignment assignment;
  private volatile CommitProbe probe = CommitProbe.NONE;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile Throwable failure;

  /**
   * A compactor whose dead letters may be as large as {@link SizePolicy#of(io.dimstream.spec.ServiceSettings)}
   * allows (the spec's limit, else Kafka's default topic limit).
   *
   * @param table  the dimension's table ({@link #openTable}); this compactor's commits go through this instance
   * @param kafka  client properties (bootstrap.servers and security settings); consumer settings are added here
   * @param owner  identifies this service instance for the table lease; a restarted instance reuses it
   */
  public Compactor(DimensionSpec spec, DeltaTable table, VersionRecordDecoder decoder, Map<String, Object> kafka,
      String owner, Clock clock) {
    this(spec, table, decoder, kafka, owner, clock, SizePolicy.of(spec.service()));
  }

  /**
   * @param table  the dimension's table ({@link #openTable}); this compactor's commits go through this instance
   * @param kafka  client properties (bootstrap.servers and security settings); consumer settings are added here
   * @param owner  identifies this service instance for the table lease; a restarted instance reuses it
   * @param sizes  the dimension's size policy: the dead-letter producer may write records up to its output limit
   */
  public Compactor(DimensionSpec spec, DeltaTable table, VersionRecordDecoder decoder, Map<String, Object> kafka,
      String owner, Clock clock, SizePolicy sizes) {
    this.spec = spec;
    this.table = table;
    this.decoder = decoder;
    this.kafka = Map.copyOf(kafka);
    this.interval = spec.service().compactionInterval();
    this.maxRecords = spec.service().compactionMaxRecords();
    this.owner = owner;
    this.clock = clock;
    this.sizes = sizes;
    this.progress = new CompactorProgress(clock);
    this.assignment = new PartitionAssignment(table);
  }

  /**
   * Opens the dimension's table as its compactor writes it, creating it when there is none. The compactor commits for
   * as long as the service runs: its checkpoints are written off the commit's path, and the index of the current
   * rows lives on disk under the data directory ({@link #positionIndexDir}), where the next start finds it.
   */
  public static DeltaTable openTable(DimensionSpec spec) {
    return DeltaTable.openOrCreate(spec.service().tableStore(), spec, spec.tableProperties(),
        TableOptions.defaults().withBackgroundCheckpoints(true).withPositionIndexDir(positionIndexDir(spec)));
  }

  /** Where the compactor keeps the index of the table's current rows: {@code <data_dir>/position-index/<name>}. */
  public static java.nio.file.Path positionIndexDir(DimensionSpec spec) {
    return spec.service().dataDir().resolve("position-index").resolve(spec.name());
  }

  /** Sets the probe called at the steps of each batch's commit (tests pause a compactor there); before {@link #run}. */
  void probe(CommitProbe probe) {
    this.probe = probe;
  }

  @Override
  public void run() {
    String topic = spec.topics().versions();
    Duration ttl = Duration.ofMillis(Math.max(30_000, interval.toMillis() * 3));
    // decided once: a table several compactors may write (merge-on-read) is shared through the consumer group
    boolean shared = table.mergeOnRead();
    // A null resource is skipped: shared tables have no lease, the consumer group assigns the partitions.
    try (CompactorLease lease = shared ? null : CompactorLease.acquire(table.store(), owner, ttl, clock);
        KafkaConsumer<byte[], byte[]> c = VersionsConsumer.open(spec, kafka, owner, maxRecords, shared);
        VersionDeadLetters letters = new VersionDeadLetters(spec.topics().dlq(), kafka, sizes.outputLimit())) {
      consumer = c;
      VersionIntake intake = new VersionIntake(decoder, letters, spec.topics().dlq(), progress);
      List<TopicPartition> partitions = VersionsConsumer.awaitPartitions(c, topic, clock, running::get);
      if (partitions.isEmpty()) {
        return; // stopped while waiting for the topic
      }
      TrustedMarkers markers = trustedMarkers(topic);
      assignment.trust(markers);
      BatchCommitter committer = new BatchCommitter(spec, table, new BatchFence(spec, table, markers, shared, probe),
          progress, probe);
      VersionBatch batch = new VersionBatch(markers.identity().appIdPrefix());
      if (shared) {
        c.subscribe(List.of(topic), new GroupRebalance(spec.name(), topic, c, batch, assignment, committer,
            () -> failure != null));
        LOG.info("Compactor of {} joins group {} for the partitions of {} (merge-on-read table: several compactors "
            + "may write it)", spec.name(), spec.name() + "-compactor", topic);
      } else {
        assignment.assignAll(c, partitions);
      }
      poll(c, batch, lease, intake, committer);
      // Clean shutdown: whatever was read is committed before the consumer closes.
      if (!batch.isEmpty()) {
        committer.commit(c, batch);
      }
    } catch (WakeupException e) {
      LOG.debug("Compactor of {} woken up to stop", spec.name());
    } catch (RuntimeException thrown) {
      // a fenced commit in the revocation callback reaches here wrapped by the consumer: the runner must see it as such
      RuntimeException e = thrown.getCause() instanceof LeaseHeldException fenced ? fenced : thrown;
      failure = e;
      if (!(e instanceof LeaseHeldException)) {
        LOG.error("Compactor of {} stopped: {}", spec.name(), e.getMessage(), e);
      }
      throw e;
    } finally {
      consumer = null;
      stopped.countDown();
    }
  }

  /**
   * Which incarnation of the versions topic this compactor reads (its topic id) and which of the table's offsets it
   * trusts, decided once: the topic's end offsets say whether a marker the table wrote before markers named the topic
   * id can be of this topic.
   */
  private TrustedMarkers trustedMarkers(String topic) {
    try (Admin admin = Admin.create(new HashMap<>(kafka))) {
      VersionsTopicIdentity identity = new VersionsTopicIdentity(spec.name(), topic,
          VersionsTopicIdentity.topicId(admin, topic));
      return TrustedMarkers.atStart(identity, table.latest(), endOffsets(admin, topic));
    }
  }

  /** The log end offset of every partition of {@code topic}. */
  private static Map<Integer, Long> endOffsets(Admin admin, String topic) {
    try {
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS).get(topic).partitions()
          .forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      Map<Integer, Long> ends = new HashMap<>();
      admin.listOffsets(request).all().get(60, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
      return ends;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CompactorErrors.endOffsetsUnknown(topic, e);
    } catch (ExecutionException e) {
      throw CompactorErrors.endOffsetsUnknown(topic, e.getCause() == null ? e : e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw CompactorErrors.endOffsetsUnknown(topic, e);
    }
  }

  /** Reads and commits until stopped: a batch is committed when it is due or full, compaction runs between them. */
  private void poll(KafkaConsumer<byte[], byte[]> c, VersionBatch batch, CompactorLease lease, VersionIntake intake,
      BatchCommitter committer) {
    CompactionCycle compaction = new CompactionCycle(table);
    CompactionSchedule compactions = new CompactionSchedule(clock);
    ArchiveMerge archiveMerge = new ArchiveMerge(table, clock);
    long batchStarted = clock.millis();
    while (running.get()) {
      ConsumerRecords<byte[], byte[]> records;
      try {
        records = c.poll(Duration.ofMillis(Math.min(500, Math.max(10, interval.toMillis()))));
      } catch (WakeupException e) {
        return;
      }
      for (ConsumerRecord<byte[], byte[]> r : records) {
        if (VersionIntake.isFromTable(r)) {
          // asked first: a takeover sends a table's every row this way, and its marker is its last header
          batch.add(r.partition(), r.offset(), null);
        } else if (VersionIntake.isEvent(r)) {
          intake.event(r, batch);
        } else {
          batch.add(r.partition(), r.offset(), intake.applicable(r));
        }
      }
      boolean due = clock.millis() - batchStarted >= interval.toMillis();
      if (!batch.isEmpty() && (due || batch.records() >= maxRecords)) {
        renew(lease);
        committer.commit(c, batch);
        compactions.committed();
        batchStarted = clock.millis();
      } else if (due) {
        renew(lease);
        batchStarted = clock.millis();
      }
      if (compactions.due(records.isEmpty() && batch.isEmpty())) {
        compaction.run(assignment.ownership());
        compactions.ran();
      }
      if (batch.isEmpty()) {
        archiveMerge.runIfDue();
      }
      progress.afterPoll(c, assignment.joinedPartitions(), records.isEmpty());
      progress.pending(batch.records());
    }
  }

  private static void renew(CompactorLease lease) {
    if (lease != null) {
      lease.renew();
    }
  }

  /** The versions-topic partitions this compactor reads now (every one of them on a table with a lease). */
  public Set<Integer> partitions() {
    return assignment.numbers();
  }

  /**
   * Records on the versions topic not yet in the table (read_committed end offsets minus positions), measured
   * after each empty poll and at most once a second while records arrive; -1 before the first measurement. Records
   * read but not yet committed count as applied only after their commit, see {@link #isCaughtUp()}.
   */
  public long lag() {
    return progress.lag();
  }

  /**
   * True when every record on the versions topic that was committed when last measured is in the table, and no record
   * was read since that measurement.
   */
  public boolean isCaughtUp() {
    return progress.isCaughtUp();
  }

  public long commits() {
    return progress.commits();
  }

  /** Version records sent to the dead-letter topic because the table cannot take them. */
  public long deadLettered() {
    return progress.deadLetters();
  }

  public long recordsApplied() {
    return progress.recordsApplied();
  }

  public long lastCommitMillis() {
    return progress.lastCommitMillis();
  }

  /** The error that stopped the compactor, or null while it runs or after a clean stop. */
  public Throwable failure() {
    return failure;
  }

  /** Stops the loop, commits what was read, closes the consumer and waits up to {@code timeout}. */
  public boolean stop(Duration timeout) {
    running.set(false);
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    try {
      return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(30));
  }
}
