package io.dimstream.compactor;

import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.SizePolicy;
import io.dimstream.storage.ObjectStore;
import io.dimstream.table.CommitStateUnknownException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the versions topic ({@code read_committed}) and merges what it read into the table every
 * {@code compaction.interval} or {@code compaction.max_records}, whichever comes first, in one commit.
 *
 * <p>Exactly once from topic to table: each commit carries, per partition, a {@code txn} action with appId
 * {@code <dim>-versions-<partition>} and the last offset applied; on start every partition is positioned right
 * after the offset the table records (consumer-group offsets are committed afterwards only as a convenience
 * for monitoring tools). A crash between the table commit and anything else re-reads at most what the table
 * already holds, which the txn markers turn into a no-op.
 *
 * <p>On a merge-on-read table several compactors (service instances) may write one table: they join the consumer
 * group {@code <dim>-compactor}, which shares the partitions among them; each commit writes the new rows of a
 * partition to files owned by it, and concurrent commits that touch disjoint files both land. A copy-on-write table
 * keeps one compactor, which holds the table's lease and reads every partition.
 *
 * <p>A record the table cannot take (undecodable, or text that is not valid Unicode) is sent to the dead-letter
 * topic with its topic, partition and offset, and the offsets move past it: one bad record never stops the table.
 */
public final class Compactor implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
  /** How long the compactor waits for the versions topic to appear before it gives up. */
  static final Duration TOPIC_WAIT = Duration.ofSeconds(60);
  /** How often a busy compactor asks the broker for end offsets (an idle one asks after every empty poll). */
  static final Duration LAG_INTERVAL = Duration.ofSeconds(1);
  /** How long a commit waits for the group coordinator to confirm this compactor's membership. */
  static final Duration MEMBERSHIP_TIMEOUT = Duration.ofSeconds(5);

  private final DimensionSpec spec;
  private final TableSink table;
  private final VersionRecordDecoder decoder;
  private final Map<String, Object> kafka;
  private final Duration interval;
  private final int maxRecords;
  private final Clock clock;
  private final ObjectStore tablePath;
  private final String owner;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong lag = new AtomicLong(-1);
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong recordsApplied = new AtomicLong();
  private volatile long lastCommitMillis;
  /** When the lag was last measured (clock millis); only the compactor thread uses it. */
  private long lagMeasuredMillis = Long.MIN_VALUE / 2;
  /** False while records were read after the last lag measurement: a lag of 0 then proves nothing. */
  private volatile boolean lagCurrent;
  private volatile int pending = -1;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile Throwable failure;
  /** The partitions this compactor reads now: all of them with the lease, the group's share otherwise. */
  private final Set<TopicPartition> assigned = ConcurrentHashMap.newKeySet();
  private volatile int topicPartitions;
  /** False until the group first assigned partitions: the lag is unknown (-1) until then. */
  private volatile boolean joined;
  /** Set when a table commit threw: the consumer's close must not commit the batch again from its callback. */
  private volatile boolean commitFailed;
  private final SizePolicy sizes;
  private VersionDeadLetters deadLetters;
  private final AtomicLong deadLettered = new AtomicLong();

  /**
   * A compactor whose dead letters may be as large as {@link SizePolicy#of(io.dimstream.spec.ServiceSettings)}
   * allows (the spec's limit, else Kafka's default topic limit).
   *
   * @param kafka  client properties (bootstrap.servers and security settings); consumer settings are added here
   * @param owner  identifies this service instance for the table lease; a restarted instance reuses it
   */
  public Compactor(DimensionSpec spec, ObjectStore tablePath, TableSink table, VersionRecordDecoder decoder,
      Map<String, Object> kafka, String owner, Clock clock) {
    this(spec, tablePath, table, decoder, kafka, owner, clock, SizePolicy.of(spec.service()));
  }

  /**
   * @param kafka  client properties (bootstrap.servers and security settings); consumer settings are added here
   * @param owner  identifies this service instance for the table lease; a restarted instance reuses it
   * @param sizes  the dimension's size policy: the dead-letter producer may write records up to its output limit
   */
  public Compactor(DimensionSpec spec, ObjectStore tablePath, TableSink table, VersionRecordDecoder decoder,
      Map<String, Object> kafka, String owner, Clock clock, SizePolicy sizes) {
    this.sizes = sizes;
    this.spec = spec;
    this.tablePath = tablePath;
    this.table = table;
    this.decoder = decoder;
    this.kafka = Map.copyOf(kafka);
    this.interval = spec.service().compactionInterval();
    this.maxRecords = spec.service().compactionMaxRecords();
    this.owner = owner;
    this.clock = clock;
  }

  @Override
  public void run() {
    String topic = spec.topics().versions();
    Duration ttl = Duration.ofMillis(Math.max(30_000, interval.toMillis() * 3));
    boolean shared = table.sharedWriters();
    // A null resource is skipped: shared tables have no lease, the consumer group assigns the partitions.
    try (CompactorLease lease = shared ? null : CompactorLease.acquire(tablePath, owner, ttl, clock);
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(shared));
        VersionDeadLetters letters = new VersionDeadLetters(spec.topics().dlq(), kafka, sizes.outputLimit())) {
      deadLetters = letters;
      consumer = c;
      List<TopicPartition> partitions = partitionsOf(c, topic);
      VersionBatch batch = new VersionBatch(spec.name() + "-versions-");
      if (shared) {
        topicPartitions = partitions.size();
        c.subscribe(List.of(topic), new Rebalance(c, batch));
        LOG.info("Compactor of {} joins group {} for the partitions of {} (merge-on-read table: several compactors "
            + "may write it)", spec.name(), spec.name() + "-compactor", topic);
      } else {
        c.assign(partitions);
        assigned.addAll(partitions);
        joined = true;
        topicPartitions = partitions.size();
        seekToTableOffsets(c, partitions);
      }
      long batchStarted = clock.millis();
      CompactionSchedule compactions = new CompactionSchedule(clock);
      while (running.get()) {
        ConsumerRecords<byte[], byte[]> records;
        try {
          records = c.poll(Duration.ofMillis(Math.min(500, Math.max(10, interval.toMillis()))));
        } catch (WakeupException e) {
          break;
        }
        for (ConsumerRecord<byte[], byte[]> r : records) {
          batch.add(r.partition(), r.offset(), applicable(r));
        }
        boolean due = clock.millis() - batchStarted >= interval.toMillis();
        if (!batch.isEmpty() && (due || batch.records() >= maxRecords)) {
          renew(lease);
          commit(c, batch);
          compactions.committed();
          batchStarted = clock.millis();
        } else if (due) {
          renew(lease);
          batchStarted = clock.millis();
        }
        if (compactions.due(records.isEmpty() && batch.isEmpty())) {
          maintain();
          compactions.ran();
        }
        // end offsets cost a broker round trip: under load once per interval, when idle at once, so that
        // isCaughtUp turns true as soon as the last record is in the table
        if (records.isEmpty() || clock.millis() - lagMeasuredMillis >= LAG_INTERVAL.toMillis()) {
          updateLag(c, List.copyOf(assigned));
        } else {
          lagCurrent = false; // records arrived since the last measurement: more may wait on the broker
        }
        pending = batch.records();
      }
      // Clean shutdown: whatever was read is committed before the consumer closes.
      if (!batch.isEmpty()) {
        commit(c, batch);
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

  private static void renew(CompactorLease lease) {
    if (lease != null) {
      lease.renew();
    }
  }

  /**
   * Follows the consumer group's assignment (runs on the polling thread, inside {@code poll}): before partitions go,
   * what was read is committed, so no batch is ever half-applied; a partition that comes is read from right after
   * the offset the table records for it.
   */
  private final class Rebalance implements ConsumerRebalanceListener {
    private final KafkaConsumer<byte[], byte[]> c;
    private final VersionBatch batch;

    Rebalance(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
      this.c = c;
      this.batch = batch;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
      // after a failed commit (its outcome may be unknown) the consumer closes: nothing more may be written
      if (!batch.isEmpty() && failure == null && !commitFailed) {
        commit(c, batch);
      }
      assigned.removeAll(revoked);
      LOG.info("Compactor of {} gave up {}", spec.name(), revoked);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
      // Another member may already write these partitions: committing now could apply records twice. Drop the
      // whole batch and re-read the partitions kept from the table's offsets.
      assigned.removeAll(lost);
      batch.clear();
      seekToTableOffsets(c, List.copyOf(assigned));
      LOG.warn("Compactor of {} lost {} without a clean hand-over; its pending records were dropped and are re-read "
          + "by the new owner", spec.name(), lost);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> added) {
      assigned.addAll(added);
      joined = true;
      try {
        topicPartitions = c.partitionsFor(spec.topics().versions(), Duration.ofSeconds(10)).size();
      } catch (RuntimeException e) {
        LOG.debug("Could not count the partitions of {}: {}", spec.topics().versions(), e.toString());
      }
      seekToTableOffsets(c, List.copyOf(added));
      LOG.info("Compactor of {} now writes {} of {} partitions: {}", spec.name(), assigned.size(), topicPartitions,
          assigned);
    }
  }

  /**
   * The record's version change, or null (its offset still counts as read) when the table cannot take it: such a
   * record goes to the dead-letter topic and stops nothing else, since a record that stays on the versions topic
   * would otherwise stop the compactor again on every start.
   */
  private VersionChange applicable(ConsumerRecord<byte[], byte[]> r) {
    VersionChange change;
    try {
      change = decoder.decode(r.key(), r.value());
    } catch (RuntimeException e) {
      deadLetter(r, CompactorErrors.undecodable(r.topic(), r.partition(), r.offset(), e).getMessage());
      return null;
    }
    if (change == null) {
      return null;
    }
    var problem = TableValueCheck.problem(change);
    if (problem.isPresent()) {
      deadLetter(r, "The version record at " + r.topic() + "-" + r.partition() + "@" + r.offset() + " cannot be "
          + "written to the table: its " + problem.get() + ". It was skipped; fix the value at its source and send "
          + "the change again");
      return null;
    }
    return change;
  }

  private void deadLetter(ConsumerRecord<byte[], byte[]> r, String detail) {
    LOG.error("{}; sent to {} as {}", detail, spec.topics().dlq(), VersionDeadLetters.REASON);
    deadLetters.send(r, detail);
    deadLettered.incrementAndGet();
  }

  /**
   * Commits the batch to the table, fenced twice against a zombie (this compactor paused, by GC or a frozen host,
   * while the group gave its partitions to another): the group must still count it a member of its current
   * generation, and the table must record no offset at or past the batch's first one in any of its partitions. The
   * second check is made by the table on the very version the commit is written on, so it holds however long the
   * compactor is paused between the checks and the write.
   */
  private void commit(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
    long started = System.nanoTime();
    String summary;
    try {
      // Another writer that applied any of these records means this compactor's position is stale: fail early.
      for (Map.Entry<Integer, Long> first : batch.firstOffsets().entrySet()) {
        OptionalLong recorded = table.txnVersion(VersionBatch.appId(spec.name(), first.getKey()));
        if (recorded.isPresent() && recorded.getAsLong() >= first.getValue()) {
          throw CompactorErrors.overtaken(spec.topics().versions(), first.getKey(), first.getValue(),
              recorded.getAsLong());
        }
      }
      if (table.sharedWriters()) {
        confirmGroupMembership(c, batch);
      }
      summary = table.commit(batch.changes(), batch.txns(), batch.readFrom(), batch.partitions(), ownedPartitions(),
          ownsAll());
    } catch (RuntimeException e) {
      // nothing of the batch may be written any more, not even by the consumer's close (its revocation callback)
      commitFailed = true;
      throw e;
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    LOG.info("{} <- {} records from {} {} ({} ms)", tablePath, batch.records(), spec.topics().versions(),
        summary, ms);
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    batch.lastOffsets().forEach((p, o) ->
        offsets.put(new TopicPartition(spec.topics().versions(), p), new OffsetAndMetadata(o + 1)));
    try {
      c.commitSync(offsets);
    } catch (RuntimeException e) {
      // Only a convenience: the table's txn markers are the source of truth.
      LOG.debug("Could not commit consumer-group offsets: {}", e.toString());
    }
    recordsApplied.addAndGet(batch.records());
    commits.incrementAndGet();
    lastCommitMillis = clock.millis();
    batch.clear();
  }

  /**
   * Asks the group coordinator whether this compactor is still a member of the group's current generation, by
   * committing the group offsets the batch started from (the table already covers everything before them, so they
   * say nothing new). A member removed from the group (its poll or session timeout passed while it was paused) is
   * refused: its partitions belong to another compactor now, so the batch is dropped and re-read from the table's
   * offsets. When the coordinator cannot be asked (a broker down, a rebalance under way) the table's fence decides
   * alone.
   */
  private void confirmGroupMembership(KafkaConsumer<byte[], byte[]> c, VersionBatch batch) {
    Map<TopicPartition, OffsetAndMetadata> startedAt = new HashMap<>();
    batch.firstOffsets().forEach((p, o) ->
        startedAt.put(new TopicPartition(spec.topics().versions(), p), new OffsetAndMetadata(o)));
    try {
      c.commitSync(startedAt, MEMBERSHIP_TIMEOUT);
    } catch (CommitFailedException | FencedInstanceIdException e) {
      throw CompactorErrors.notAGroupMember(spec.name() + "-compactor", batch.firstOffsets().keySet(), e);
    } catch (RuntimeException e) {
      LOG.debug("Could not confirm the group membership before a commit ({}); the table's txn fence decides",
          e.toString());
    }
  }

  /** One bounded compaction cycle after a commit; a failure is logged and retried after the next commit. */
  private void maintain() {
    long started = System.nanoTime();
    try {
      String summary = table.maintain(ownedPartitions(), ownsAll());
      if (summary != null) {
        LOG.info("{} compaction: {} ({} ms)", tablePath, summary, (System.nanoTime() - started) / 1_000_000);
      }
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      // compaction changes no rows: the next cycle retries it, the stream of commits must not stop for it
      LOG.warn("{}: compaction cycle failed, retried after the next commit: {}", tablePath, e.toString());
    }
  }

  private Set<Integer> ownedPartitions() {
    Set<Integer> out = new TreeSet<>();
    assigned.forEach(tp -> out.add(tp.partition()));
    return out;
  }

  /** Whether this compactor reads every partition of the topic (then it may also compact unowned files). */
  private boolean ownsAll() {
    return topicPartitions > 0 && assigned.size() >= topicPartitions;
  }

  private void seekToTableOffsets(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
    List<TopicPartition> fromStart = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      OptionalLong recorded = table.txnVersion(VersionBatch.appId(spec.name(), tp.partition()));
      if (recorded.isPresent()) {
        c.seek(tp, recorded.getAsLong() + 1);
        LOG.info("Resuming {} at offset {} (recorded in table version {})", tp, recorded.getAsLong() + 1,
            table.latestVersion());
      } else {
        fromStart.add(tp);
      }
    }
    if (!fromStart.isEmpty()) {
      c.seekToBeginning(fromStart);
    }
  }

  private List<TopicPartition> partitionsOf(KafkaConsumer<byte[], byte[]> c, String topic) {
    long deadline = clock.millis() + TOPIC_WAIT.toMillis();
    while (running.get()) {
      List<PartitionInfo> infos;
      try {
        infos = c.partitionsFor(topic, Duration.ofSeconds(10));
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        // The brokers do not answer (a network cut, a cluster restart): the topic is not known to be missing, so the
        // compactor waits for them as the service's start does, instead of stopping the whole service.
        LOG.warn("Compactor of {} cannot reach the brokers to read the partitions of {} ({}); trying again",
            spec.name(), topic, e.getMessage());
        deadline = clock.millis() + TOPIC_WAIT.toMillis();
        continue;
      }
      if (infos != null && !infos.isEmpty()) {
        return infos.stream().map(i -> new TopicPartition(topic, i.partition())).sorted(
            java.util.Comparator.comparingInt(TopicPartition::partition)).toList();
      }
      if (clock.millis() > deadline) {
        throw CompactorErrors.missingTopic(topic, TOPIC_WAIT);
      }
      sleep(500);
    }
    return List.of();
  }

  private void updateLag(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> partitions) {
    if (!joined) {
      return;
    }
    try {
      Map<TopicPartition, Long> ends = c.endOffsets(partitions, Duration.ofSeconds(5));
      long total = 0;
      for (TopicPartition tp : partitions) {
        total += Math.max(0, ends.getOrDefault(tp, 0L) - c.position(tp, Duration.ofSeconds(5)));
      }
      lag.set(total);
      lagMeasuredMillis = clock.millis();
      lagCurrent = true;
    } catch (RuntimeException e) {
      LOG.debug("Could not measure the compaction lag: {}", e.toString());
    }
  }

  private Properties consumerProperties(boolean shared) {
    Properties p = new Properties();
    p.putAll(kafka);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, spec.name() + "-compactor");
    // Static membership, as the stream threads have: an instance restarted after a crash takes back its partitions
    // at once instead of waiting for its dead member's session to expire (45 s by default, once per crash). A
    // clean stop does not leave the group either, so a short session moves a stopped instance's partitions soon.
    if (shared) {
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, spec.name() + "-compactor-"
          + Integer.toHexString(owner.hashCode()));
      p.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
      // Cooperative rebalancing: when an instance stops, pauses or joins, only the partitions that move are revoked;
      // the other compactors keep reading and committing theirs instead of all handing everything back at once.
      p.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    }
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Math.min(10_000, Math.max(500, maxRecords)));
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }

  /** The versions-topic partitions this compactor reads now (every one of them on a table with a lease). */
  public Set<Integer> partitions() {
    return ownedPartitions();
  }

  /**
   * Records on the versions topic not yet in the table (read_committed end offsets minus positions), measured
   * after each empty poll and at most once a second while records arrive; -1 before the first measurement. Records
   * read but not yet committed count as applied only after their commit, see {@link #isCaughtUp()}.
   */
  public long lag() {
    return lag.get();
  }

  /**
   * True when every record on the versions topic that was committed when last measured is in the table, and no record
   * was read since that measurement.
   */
  public boolean isCaughtUp() {
    return lagCurrent && lag.get() == 0 && pending == 0;
  }

  public long commits() {
    return commits.get();
  }

  /** Version records sent to the dead-letter topic because the table cannot take them. */
  public long deadLettered() {
    return deadLettered.get();
  }

  public long recordsApplied() {
    return recordsApplied.get();
  }

  public long lastCommitMillis() {
    return lastCommitMillis;
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
      return stopped.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(30));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
