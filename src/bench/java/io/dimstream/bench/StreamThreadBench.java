package io.dimstream.bench;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.DimensionTopology;
import io.dimstream.topology.EventRecordHeaders;
import io.dimstream.topology.KeyedChanges;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * The topology's own CPU per change event, without a broker: the service's topology under {@code TopologyTestDriver}
 * with RocksDB stores, fed the topology benchmark's generated stream, on this thread (thread CPU time, so a loaded
 * machine hardly moves it). Repartitioned and keyed ({@code changes_keyed_by_business_key}) specs; a few rounds per
 * JVM, each on a fresh state directory; the first round includes JIT warm-up.
 * {@code java -cp "$(cat target/bench/cp)" io.dimstream.bench.StreamThreadBench quick|full DIR [rounds]}.
 */
public final class StreamThreadBench {
  /** The topology benchmark's seed, so both feed the same stream. */
  private static final long SEED = 20_261_129L;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private StreamThreadBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Path.of(args.length > 1 ? args[1] : "target/bench/stream-thread");
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    int events = quick ? 20_000 : 100_000;
    int keys = quick ? 5_000 : 20_000;
    ChangeStreams.GeneratedStream s = ChangeStreams.random(BenchSpecs.customers(), SEED).keys(keys)
        .events(events).late(0.05).duplicates(0.02).noChange(0.05).deletes(0.01).generate();
    List<byte[]> values = s.jsonLines().stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
    for (boolean keyed : new boolean[] {false, true}) {
      DimensionSpec spec = spec(work, keyed);
      KeyedChanges router = new KeyedChanges(spec);
      List<byte[]> recordKeys = keyed
          ? values.stream().map(v -> router.route(null, v, 1).orElseThrow().key()).toList()
          : s.events().stream().map(e -> e.key().values().get(0).toString().getBytes(StandardCharsets.UTF_8))
              .toList();
      for (int round = 1; round <= rounds; round++) {
        Path state = Files.createTempDirectory(work, "state-");
        long[] out = new long[1];
        long cpu = run(spec, state, recordKeys, values, out);
        emit("stream_thread", "cpu_us_per_event", cpu / 1e3 / values.size(), "us/event", params("keyed", keyed,
            "round", round, "events", values.size(), "keys", keys, "versions_out", out[0]));
      }
    }
  }

  private static DimensionSpec spec(Path work, boolean keyed) throws Exception {
    Path file = BenchSpecs.write(work, keyed ? "st-keyed" : "st", null, "");
    if (keyed) {
      Files.writeString(file, "topics: {changes_keyed_by_business_key: true}\n", StandardOpenOption.APPEND);
    }
    return DimensionSpecLoader.load(file);
  }

  /** Thread CPU nanoseconds to pipe every record through and read the versions topic. */
  private static long run(DimensionSpec spec, Path state, List<byte[]> keys, List<byte[]> values, long[] out) {
    StreamsBuilder b = new StreamsBuilder();
    DimensionTopology.build(b, spec);
    Properties p = DimensionTopology.config(spec, Map.of("bootstrap.servers", "unused:9092"), state);
    p.put(DimensionTopology.CHANGES_PARTITIONS_CONFIG, "1");
    try (TopologyTestDriver driver = new TopologyTestDriver(b.build(), p, Instant.EPOCH)) {
      TestInputTopic<byte[], byte[]> in = driver.createInputTopic(spec.topics().changes(), new ByteArraySerializer(),
          new ByteArraySerializer());
      TestOutputTopic<byte[], byte[]> versions = driver.createOutputTopic(spec.topics().versions(),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      long t0 = THREADS.getCurrentThreadCpuTime();
      for (int i = 0; i < values.size(); i++) {
        in.pipeInput(keys.get(i), values.get(i), i);
        if (i % 10_000 == 9_999) {
          out[0] += versionRecords(versions); // drained so the driver's queue does not grow
        }
      }
      long cpu = THREADS.getCurrentThreadCpuTime() - t0;
      out[0] += versionRecords(versions);
      return cpu;
    }
  }

  /**
   * Drains {@code versions}; returns how many version records it held (not event records: the event store's writes,
   * which the compactor keeps beside the table).
   */
  private static long versionRecords(TestOutputTopic<byte[], byte[]> versions) {
    return versions.readRecordsToList().stream().filter(r -> !EventRecordHeaders.isEvent(r.headers())).count();
  }
}
