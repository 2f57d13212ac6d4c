package io.dimstream.chaos;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Where the processes talk to each other. With network namespaces (Linux, root: {@code ip netns}) every service
 * instance runs in a namespace of its own, linked by a veth pair to a bridge on which the brokers and the S3 server
 * listen ({@code 10.231.<slot>.1}); a partition is then a set of {@code iptables} DROP rules inside one instance's
 * namespace, in both directions, for the ports of the brokers or of the store, lifted when it heals. Without them
 * everything runs on 127.0.0.1 and there are no partitions; {@link #unavailableReason()} says why.
 *
 * <p>Each run takes a slot of its own (its devices, namespaces and subnet are named by it), held by a lock on a file
 * under {@value #SLOTS}, so that runs side by side on one host do not tear down each other's network; the devices
 * of a run that died without removing them are removed by the next run that takes its slot.
 */
final class Network implements AutoCloseable {
  static final String SLOTS = "/run/dimstream-chaos";
  private static final int SLOT_COUNT = 64;
  private final int instances;
  private final int slot;
  private final FileLock lock;
  private final String unavailableReason;

  private Network(int instances, int slot, FileLock lock, String unavailableReason) {
    this.instances = instances;
    this.slot = slot;
    this.lock = lock;
    this.unavailableReason = unavailableReason;
  }

  private Network(int instances, String unavailableReason) {
    this(instances, -1, null, unavailableReason);
  }

  /** Namespaces for {@code instances} instances when the machine allows them, else loopback. */
  static Network setUp(int instances, boolean wanted) {
    if (!wanted) {
      return new Network(instances, "network partitions were turned off (--no-partitions)");
    }
    if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
      return new Network(instances, "network namespaces need Linux");
    }
    Network n;
    try {
      n = takeSlot(instances);
    } catch (IOException e) {
      return new Network(instances, "no slot for a network of its own (" + e.getMessage() + ")");
    }
    try {
      n.tearDown(); // what a run that died in this slot left
      run("ip", "link", "add", n.bridge(), "type", "bridge");
      run("ip", "addr", "add", n.serverIp() + "/24", "dev", n.bridge());
      run("ip", "link", "set", n.bridge(), "up");
      for (int i = 0; i < instances; i++) {
        String ns = n.namespace(i);
        run("ip", "netns", "add", ns);
        run("ip", "link", "add", n.hostSide(i), "type", "veth", "peer", "name", n.nsSide(i));
        run("ip", "link", "set", n.nsSide(i), "netns", ns);
        run("ip", "link", "set", n.hostSide(i), "master", n.bridge());
        run("ip", "link", "set", n.hostSide(i), "up");
        run("ip", "netns", "exec", ns, "ip", "addr", "add", n.subnet() + (11 + i) + "/24", "dev", n.nsSide(i));
        run("ip", "netns", "exec", ns, "ip", "link", "set", n.nsSide(i), "up");
        run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
        run("ip", "netns", "exec", ns, "iptables", "-L", "OUTPUT");
      }
      return n;
    } catch (IOException | RuntimeException e) {
      n.close();
      return new Network(instances, "network namespaces are not available here (" + e.getMessage()
          + "); they need Linux, root (CAP_NET_ADMIN), the ip and iptables commands and veth and bridge devices");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      n.close();
      return new Network(instances, "interrupted while setting up network namespaces");
    }
  }

  /** The first slot whose lock file no live process holds; the lock is held until {@link #close()}. */
  private static Network takeSlot(int instances) throws IOException {
    Path dir = Files.createDirectories(Path.of(SLOTS));
    for (int slot = 0; slot < SLOT_COUNT; slot++) {
      FileChannel channel = FileChannel.open(dir.resolve("slot-" + slot + ".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock != null) {
        return new Network(instances, slot, lock, null);
      }
      channel.close();
    }
    throw new IOException("all " + SLOT_COUNT + " slots under " + SLOTS + " are held by running processes");
  }

  boolean partitions() {
    return unavailableReason == null;
  }

  String unavailableReason() {
    return unavailableReason;
  }

  /** The address the brokers and the store listen on, and every process reaches them at. */
  String serverHost() {
    return partitions() ? serverIp() : "127.0.0.1";
  }

  private String subnet() {
    return "10.231." + slot + ".";
  }

  private String serverIp() {
    return subnet() + "1";
  }

  /** {@code command} run inside instance {@code i}'s namespace, when there are namespaces. */
  List<String> inInstance(int i, List<String> command) {
    if (!partitions()) {
      return command;
    }
    List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace(i)));
    out.addAll(command);
    return out;
  }

  /** Drops every TCP packet between instance {@code i} and {@code ports} of the server address, both ways. */
  void cut(int i, Collection<Integer> ports) throws IOException, InterruptedException {
    for (int port : ports) {
      run("ip", "netns", "exec", namespace(i), "iptables", "-A", "OUTPUT", "-p", "tcp", "-d", serverIp(),
          "--dport", Integer.toString(port), "-j", "DROP");
      run("ip", "netns", "exec", namespace(i), "iptables", "-A", "INPUT", "-p", "tcp", "-s", serverIp(),
          "--sport", Integer.toString(port), "-j", "DROP");
    }
  }

  /** Lifts every partition of instance {@code i}. */
  void heal(int i) throws IOException, InterruptedException {
    run("ip", "netns", "exec", namespace(i), "iptables", "-F", "OUTPUT");
    run("ip", "netns", "exec", namespace(i), "iptables", "-F", "INPUT");
  }

  @Override
  public void close() {
    if (lock == null) {
      return;
    }
    tearDown();
    try {
      lock.channel().close(); // releases the slot
    } catch (IOException e) {
      // the lock goes with the process anyway
    }
  }

  private void tearDown() {
    for (int i = 0; i < instances; i++) {
      quietly("ip", "link", "del", hostSide(i));
      quietly("ip", "netns", "del", namespace(i));
    }
    quietly("ip", "link", "del", bridge());
  }

  /** Device and namespace names: at most 15 characters, as Linux allows. */
  private String bridge() {
    return "dsc" + slot + "-br";
  }

  private String namespace(int i) {
    return "dsc" + slot + "-i" + i;
  }

  private String hostSide(int i) {
    return "dsc" + slot + "-h" + i;
  }

  private String nsSide(int i) {
    return "dsc" + slot + "-n" + i;
  }

  private static void quietly(String... cmd) {
    try {
      new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
          .waitFor();
    } catch (IOException e) {
      // nothing to remove
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int code = p.waitFor();
    if (code != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + code + ": " + out.strip());
    }
  }
}
