package io.dimstream.topology;

import static io.dimstream.bench.Figures.emit;
import static io.dimstream.bench.Figures.params;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.history.StoredEvent;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.ColumnType;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * How long the event-store prune holds the stream thread: a RocksDB event store of N keys with 3 stored events each
 * (the oldest past the lateness horizon), then 20 prune slices (what each punctuation now does; median and max) and one
 * pass over the rest of the store (what each punctuation did before, every 60 s). Wall and thread CPU.
 * {@code java -cp "$(cat target/bench/cp)" io.dimstream.topology.PruneBench quick|full DIR}.
 */
public final class PruneBench {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final DimensionSpec SPEC = DimensionSpec.builder("prune")
      .column("id", ColumnType.LONG).column("name", ColumnType.STRING).column("seq", ColumnType.LONG)
      .key("id").sequence("seq").latenessHorizon(100)
      .build();

  private PruneBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = args.length > 0 && args[0].equals("quick");
    Path work = Path.of(args.length > 1 ? args[1] : "target/bench/prune");
    Files.createDirectories(work);
    int keys = quick ? 100_000 : 2_000_000;
    Properties config = new Properties();
    config.put(StreamsConfig.APPLICATION_ID_CONFIG, "prune-bench");
    config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    MockProcessorContext<Object, Object> context = new MockProcessorContext<>(config, new TaskId(0, 0),
        Files.createTempDirectory(work, "state-").toFile());
    KeyValueStore<Bytes, byte[]> events = Stores.keyValueStoreBuilder(
        Stores.persistentKeyValueStore(DimensionTopology.EVENT_STORE), Serdes.Bytes(), Serdes.ByteArray())
        .withLoggingDisabled().withCachingDisabled().build();
    events.init(context.getStateStoreContext(), events);
    try {
      RocksDbHistoryStore store = new RocksDbHistoryStore(events, new EventJson(SPEC), new StateBinary(SPEC), 1);
      fill(store, keys);
      IncrementalHistory history = new IncrementalHistory(SPEC);
      int slices = 20;
      long[] sliceWall = new long[slices];
      long[] sliceCpu = new long[slices];
      long sliceDeleted = 0;
      for (int i = 0; i < slices; i++) { // the first slices include JIT warm-up, so the median is the figure
        long c = cpu();
        long w = System.nanoTime();
        sliceDeleted += store.pruneSlice(history, Scd2Processor.PRUNE_SLICE_EVENTS);
        sliceWall[i] = System.nanoTime() - w;
        sliceCpu[i] = cpu() - c;
      }
      Arrays.sort(sliceWall);
      Arrays.sort(sliceCpu);
      long passCpu = cpu();
      long passWall = System.nanoTime();
      long passDeleted = store.pruneSlice(history, Integer.MAX_VALUE); // the rest of the store in one go, as before
      passWall = System.nanoTime() - passWall;
      passCpu = cpu() - passCpu;
      var p = params("keys", keys, "stored_events", keys * 3L, "slice_events", Scd2Processor.PRUNE_SLICE_EVENTS,
          "slices", slices, "slices_deleted", sliceDeleted, "pass_deleted", passDeleted);
      emit("prune", "slice_pause_median_ms", sliceWall[slices / 2] / 1e6, "ms", p);
      emit("prune", "slice_pause_max_ms", sliceWall[slices - 1] / 1e6, "ms", p);
      emit("prune", "slice_cpu_median_ms", sliceCpu[slices / 2] / 1e6, "ms", p);
      emit("prune", "whole_store_pause_ms", passWall / 1e6, "ms", p);
      emit("prune", "whole_store_cpu_ms", passCpu / 1e6, "ms", p);
    } finally {
      events.close();
    }
  }

  /** Every key: events at 10 (past the horizon), 50 (the anchor) and 200 (the newest). */
  private static void fill(RocksDbHistoryStore store, int keys) {
    for (long id = 0; id < keys; id++) {
      BusinessKey key = BusinessKey.of(id);
      for (long seq : new long[] {10, 50, 200}) {
        List<Object> attrs = List.of("name-" + id + "-" + seq);
        Version open = new Version(key, Sequence.of(seq), null, attrs);
        store.putEvent(key, new StoredEvent(ChangeEvent.upsert(key, Sequence.of(seq), attrs), open));
      }
    }
  }

  private static long cpu() {
    return THREADS.getCurrentThreadCpuTime();
  }
}
