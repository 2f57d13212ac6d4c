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
 * The seeded schedule of faults, run on one track for the brokers and one or more for the service instances (one
 * track takes turns over all instances; with one track per instance they are faulted side by side), each track
 * sequential (one fault of a track at a time, so at most one broker is ever down: replication factor 3 with
 * {@code min.insync.replicas} 2 keeps accepting writes) and the tracks side by side. Every choice (the next
 * fault's kind, target, how long it lasts, the pause before the next) comes from the track's own
 * {@code Random(seed)}; a track starts a new fault at most {@code maxGap} after the previous one ended.
 * An instance track picks the kind it has injected least so far (ties broken by the seed), so every kind gets a
 * share.
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
  }

  void start() {
    tracks.add(new Thread(() -> track(this::brokerFault, new Random(seed * 31 + 7)), "chaos-faults-brokers"));
    int n = Math.min(instanceTracks, instances.size());
    for (int t = 0; t < n; t++) {
      int track = t;
      // track t injects into the instances i with i % n == t: one track takes turns over all of them
      List<Integer> mine = new ArrayList<>();
      for (int i = t; i < instances.size(); i += n) {
        mine.add(i);
      }
      Map<Fault.Kind, Integer> counts = new EnumMap<>(Fault.Kind.class);
      tracks.add(new Thread(() -> track(r -> instanceFault(mine.get(r.nextInt(mine.size())), r, counts),
          new Random(seed * 31 + 11 + track)), "chaos-faults-instances-" + t));
    }
    tracks.forEach(Thread::start);
  }

  private interface Step {
    Fault run(Random r) throws Exception;
  }

  private void track(Step step, Random r) {
    try {
      sleep(2_000 + r.nextInt(8_000)); // the tracks start apart
      while (!stopping.get()) {
        Fault f = step.run(r);
        record(f);
        sleep(1_000 + r.nextInt(4_000));
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
    long down = 2_000 + r.nextInt(6_000);
    long start = System.currentTimeMillis();
    node.kill();
    sleep(down);
    node.start();
    long end = System.currentTimeMillis();
    // the node must be back in the cluster before the track may take another one down
    brokers.awaitAll(Duration.ofMinutes(2));
    sleep(3_000);
    return new Fault(Fault.Kind.KILL_BROKER, node.name(), "down " + down + " ms", start, end);
  }

  private Fault instanceFault(int i, Random r, Map<Fault.Kind, Integer> counts) throws Exception {
    int before = instances.runningLines(i);
    if (instances.restartIfExited(i)) {
      instances.awaitRunning(i, before, Duration.ofMinutes(3));
    }
    List<Fault.Kind> kinds = new ArrayList<>(List.of(Fault.Kind.KILL_INSTANCE, Fault.Kind.PAUSE_INSTANCE));
    if (network.partitions()) {
      kinds.add(Fault.Kind.PARTITION_INSTANCE);
    }
    int least = kinds.stream().mapToInt(k -> counts.getOrDefault(k, 0)).min().orElse(0);
    kinds.removeIf(k -> counts.getOrDefault(k, 0) > least);
    Fault.Kind kind = kinds.get(r.nextInt(kinds.size()));
    counts.merge(kind, 1, Integer::sum);
    Child c = instances.get(i);
    long start = System.currentTimeMillis();
    switch (kind) {
      case KILL_INSTANCE -> {
        long down = 1_000 + r.nextInt(4_000);
        int runs = instances.runningLines(i);
        c.kill();
        sleep(down);
        c.start();
        Fault f = new Fault(kind, c.name(), "down " + down + " ms", start, System.currentTimeMillis());
        // the next fault of this instance waits until it runs again: a JVM killed every few seconds while it
        // starts would test nothing but the start
        instances.awaitRunning(i, runs, Duration.ofMinutes(3));
        return f;
      }
      case PAUSE_INSTANCE -> {
        // longer than the session timeout: the group moves the instance's partitions away while it sleeps, and
        // it wakes up as a zombie that still believes it owns them
        long paused = sessionTimeout.toMillis() + 2_000 + r.nextInt(6_000);
        c.pause();
        sleep(paused);
        c.resume();
        return new Fault(kind, c.name(), "stopped " + paused + " ms", start, System.currentTimeMillis());
      }
      case PARTITION_INSTANCE -> {
        boolean fromStore = r.nextBoolean();
        long cut = 10_000 + r.nextInt(20_000);
        network.cut(i, fromStore ? storePorts : brokers.clientPorts());
        try {
          sleep(cut);
        } finally {
          network.heal(i);
        }
        return new Fault(kind, c.name(), (fromStore ? "from the store " : "from the brokers ") + cut + " ms",
            start, System.currentTimeMillis());
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
