package io.dimstream.chaos;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The seeded schedule of faults: one track for the brokers and {@code instanceTracks} for the service instances,
 * side by side. The broker track is sequential and takes the next node down only when the last one is running
 * again and every partition has all its replicas in sync, so at most one node is ever down (replication factor 3
 * with {@code min.insync.replicas} 2 keeps accepting writes, and the controller quorum keeps its majority). The
 * instance tracks share the instances: each picks the kind injected least so far over all instance tracks (ties
 * broken by the seed) and an instance no other track holds, so up to {@code instanceTracks} instances are faulted
 * at once. Every choice (kind, target, duration, the pause before the next) comes from the track's own
 * {@code Random(seed)}; the moments depend on how fast the machine is.
 */
final class FaultSchedule implements AutoCloseable {
  private final BrokerCluster brokers;
  private final Instances instances;
  private final Network network;
  private final List<Integer> storePorts;
  private final long seed;
  private final Duration sessionTimeout;
  private final PrintWriter history;
  private final long runStartMs;
  private final int instanceTracks;
  private final List<Fault> faults = new ArrayList<>();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final List<Thread> tracks = new ArrayList<>();
  /** Instances a track is faulting now; guarded by this. */
  private final java.util.Set<Integer> busy = new java.util.HashSet<>();
  /** Per instance, how often it had logged that it runs when it was last killed; guarded by this. */
  private final int[] runsBefore;
  /** Instance faults injected so far, by kind, over all instance tracks; guarded by this. */
  private final Map<Fault.Kind, Integer> instanceCounts = new EnumMap<>(Fault.Kind.class);
  private volatile Exception failure;

  FaultSchedule(BrokerCluster brokers, Instances instances, Network network, List<Integer> storePorts, long seed,
      Duration sessionTimeout, int instanceTracks, PrintWriter history, long runStartMs) {
    this.instanceTracks = instanceTracks;
    this.brokers = brokers;
    this.instances = instances;
    this.network = network;
    this.storePorts = storePorts;
    this.seed = seed;
    this.sessionTimeout = sessionTimeout;
    this.history = history;
    this.runStartMs = runStartMs;
    this.runsBefore = new int[instances.size()];
  }

  void start() {
    tracks.add(new Thread(() -> track(this::brokerFault, new Random(seed * 31 + 7), 200, 500),
        "chaos-faults-brokers"));
    int n = Math.min(instanceTracks, instances.size());
    for (int t = 0; t < n; t++) {
      int track = t;
      tracks.add(new Thread(() -> track(this::instanceFault, new Random(seed * 31 + 11 + track), 1_000, 1_500),
          "chaos-faults-instances-" + t));
    }
    tracks.forEach(Thread::start);
  }

  private interface Step {
    Fault run(Random r) throws Exception;
  }

  /**
   * Runs faults until {@link #close}, {@code minGapMs} + up to {@code gapSpreadMs} apart. The broker track's gaps are
   * short: each of its faults already waits for the restarted node to be in sync, 15–30 s on a small machine.
   */
  private void track(Step step, Random r, int minGapMs, int gapSpreadMs) {
    try {
      sleep(minGapMs + r.nextInt(4_000)); // the tracks start apart
      while (!stopping.get()) {
        Fault f = step.run(r);
        if (f != null) {
          record(f);
        }
        sleep(minGapMs / 2 + r.nextInt(gapSpreadMs));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      failure = e;
      System.err.println("chaos: a fault track failed: " + e);
    }
  }

  private Fault brokerFault(Random r) throws Exception {
    int i = r.nextInt(brokers.size());
    Child node = brokers.node(i);
    long down = 200 + r.nextInt(1_000);
    int starts = brokers.starts(i);
    long start = System.currentTimeMillis();
    node.kill();
    sleep(down);
    node.start();
    long end = System.currentTimeMillis();
    // The node must be running and every partition in sync again before the track may take a node down: a node
    // that is still starting or catching up is down too, and two down nodes stop the cluster.
    boolean back = brokers.awaitBackInSync(i, starts, Duration.ofMinutes(3));
    long inSync = System.currentTimeMillis();
    return new Fault(Fault.Kind.KILL_BROKER, node.name(), "down " + down + " ms, back in sync after "
        + (back ? (inSync - start) / 1000 + " s" : "more than 3 minutes"), start, end);
  }

  /**
   * One fault on an instance no other track holds: the kind injected least so far over all instance tracks (ties
   * broken by the seed), on an instance picked at random among the free ones. A killed instance is free again as
   * soon as it was started again; it is not killed again before it logged that it runs (a JVM killed while it
   * starts, again and again, would test nothing but the start), but it may be paused or cut off while it starts.
   * Returns null when no instance is free for the kind now.
   */
  private Fault instanceFault(Random r) throws Exception {
    synchronized (this) {
      for (int j = 0; j < instances.size(); j++) {
        // an instance that ended by itself is started again, as a supervisor would; one a track holds is not
        if (!busy.contains(j) && instances.restartIfExited(j)) {
          runsBefore[j] = instances.runningLines(j);
        }
      }
    }
    List<Fault.Kind> kinds = new ArrayList<>(List.of(Fault.Kind.KILL_INSTANCE, Fault.Kind.PAUSE_INSTANCE));
    if (network.partitions()) {
      kinds.add(Fault.Kind.PARTITION_FROM_BROKERS);
      kinds.add(Fault.Kind.PARTITION_FROM_STORE);
    }
    Fault.Kind kind;
    int i;
    synchronized (this) {
      int least = kinds.stream().mapToInt(k -> instanceCounts.getOrDefault(k, 0)).min().orElse(0);
      List<Fault.Kind> fewest = new ArrayList<>(kinds);
      fewest.removeIf(k -> instanceCounts.getOrDefault(k, 0) > least);
      kind = fewest.get(r.nextInt(fewest.size()));
      List<Integer> free = new ArrayList<>();
      for (int j = 0; j < instances.size(); j++) {
        if (!busy.contains(j) && (kind != Fault.Kind.KILL_INSTANCE || instances.runningLines(j) > runsBefore[j])) {
          free.add(j);
        }
      }
      if (free.isEmpty()) {
        i = -1;
      } else {
        i = free.get(r.nextInt(free.size()));
        busy.add(i);
        instanceCounts.merge(kind, 1, Integer::sum);
      }
    }
    if (i < 0) {
      sleep(500);
      return null;
    }
    try {
      return inject(kind, i, r);
    } finally {
      synchronized (this) {
        busy.remove(i);
      }
    }
  }

  private Fault inject(Fault.Kind kind, int i, Random r) throws Exception {
    Child c = instances.get(i);
    long start = System.currentTimeMillis();
    switch (kind) {
      case KILL_INSTANCE -> {
        long down = 1_000 + r.nextInt(4_000);
        synchronized (this) {
          runsBefore[i] = instances.runningLines(i);
        }
        c.kill();
        sleep(down);
        c.start();
        return new Fault(kind, c.name(), "down " + down + " ms", start, System.currentTimeMillis());
      }
      case PAUSE_INSTANCE -> {
        // longer than the session timeout: the groups move the instance's partitions away while it sleeps, and
        // it wakes up as a zombie that still believes it owns them
        long paused = sessionTimeout.toMillis() + 1_000 + r.nextInt(4_000);
        c.pause();
        sleep(paused);
        c.resume();
        return new Fault(kind, c.name(), "stopped " + paused + " ms", start, System.currentTimeMillis());
      }
      case PARTITION_FROM_BROKERS, PARTITION_FROM_STORE -> {
        boolean fromStore = kind == Fault.Kind.PARTITION_FROM_STORE;
        long cut = 10_000 + r.nextInt(5_000);
        network.cut(i, fromStore ? storePorts : brokers.clientPorts());
        try {
          sleep(cut);
        } finally {
          network.heal(i);
        }
        return new Fault(kind, c.name(), "cut " + cut + " ms", start, System.currentTimeMillis());
      }
      default -> throw new IllegalStateException("no instance fault " + kind);
    }
  }

  private synchronized void record(Fault f) {
    faults.add(f);
    history.println(f.toJson(runStartMs));
    history.flush();
    System.err.println("chaos: " + f.toJson(runStartMs));
  }

  synchronized List<Fault> faults() {
    return List.copyOf(faults);
  }

  Exception failure() {
    return failure;
  }

  /** Starts no new fault, lets the running ones heal, and waits for the tracks to end. */
  @Override
  public void close() throws InterruptedException {
    stopping.set(true);
    for (Thread t : tracks) {
      t.join(180_000);
    }
  }

  private static void sleep(long ms) throws InterruptedException {
    Thread.sleep(ms);
  }

}
