package io.dimstream.bench;

import io.dimstream.testkit.ChangeStreams;
import io.dimstream.topology.TopologyRunner;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;

/**
 * The topology's stream-thread CPU per event without a broker: {@link TopologyRunner#replay} (RocksDB stores, the
 * test driver on this thread) of a generated stream, several rounds in one JVM, this thread's CPU time per event.
 * Usage: {@code ReplayCpuBench [events] [keys] [rounds]}.
 */
public final class ReplayCpuBench {
  private ReplayCpuBench() {}

  public static void main(String[] args) {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    ChangeStreams.GeneratedStream s = ChangeStreams.random(BenchSpecs.customers(), 42).keys(keys).events(events)
        .late(0.05).duplicates(0.02).noChange(0.05).deletes(0.01).generate();
    List<byte[]> values = s.values();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (int r = 1; r <= rounds; r++) {
      long cpu0 = mx.getCurrentThreadCpuTime();
      long wall0 = System.nanoTime();
      TopologyRunner.Replay out = TopologyRunner.replay(BenchSpecs.customers(), values.iterator(), rej -> { });
      long cpu = mx.getCurrentThreadCpuTime() - cpu0;
      long wall = System.nanoTime() - wall0;
      Figures.emit("replay", "cpu_us_per_event", cpu / 1e3 / events, "us", Map.of("round", r, "events", events,
          "keys", keys, "versions", out.history().size(), "wall_ms", wall / 1_000_000));
    }
  }
}
