package io.dimstream.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Where the processes talk to each other. With network namespaces (Linux, root: {@code ip netns}) every service
 * instance runs in a namespace of its own, linked by a veth pair to a bridge on which the brokers and the S3 server
 * listen ({@value #SERVER_IP}); a partition is then a set of {@code iptables} DROP rules inside one instance's
 * namespace, in both directions, for the ports of the brokers or of the store, lifted when it heals. Without them
 * everything runs on 127.0.0.1 and there are no partitions; {@link #unavailableReason()} says why.
 */
final class Network implements AutoCloseable {
  static final String SERVER_IP = "10.231.0.1";
  private static final String BRIDGE = "dsc-br";
  private final int instances;
  private final String unavailableReason;

  private Network(int instances, String unavailableReason) {
    this.instances = instances;
    this.unavailableReason = unavailableReason;
  }

  /** Namespaces for {@code instances} instances when the machine allows them, else loopback. */
  static Network setUp(int instances, boolean wanted) {
    if (!wanted) {
      return new Network(instances, "network partitions were turned off (--no-partitions)");
    }
    if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
      return new Network(instances, "network namespaces need Linux");
    }
    Network n = new Network(instances, null);
    try {
      n.tearDown();
      run("ip", "link", "add", BRIDGE, "type", "bridge");
      run("ip", "addr", "add", SERVER_IP + "/24", "dev", BRIDGE);
      run("ip", "link", "set", BRIDGE, "up");
      for (int i = 0; i < instances; i++) {
        String ns = namespace(i);
        run("ip", "netns", "add", ns);
        run("ip", "link", "add", hostSide(i), "type", "veth", "peer", "name", nsSide(i));
        run("ip", "link", "set", nsSide(i), "netns", ns);
        run("ip", "link", "set", hostSide(i), "master", BRIDGE);
        run("ip", "link", "set", hostSide(i), "up");
        run("ip", "netns", "exec", ns, "ip", "addr", "add", "10.231.0." + (11 + i) + "/24", "dev", nsSide(i));
        run("ip", "netns", "exec", ns, "ip", "link", "set", nsSide(i), "up");
        run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
        run("ip", "netns", "exec", ns, "iptables", "-L", "OUTPUT");
      }
      return n;
    } catch (IOException | RuntimeException e) {
      n.tearDown();
      return new Network(instances, "network namespaces are not available here (" + e.getMessage()
          + "); they need Linux, root (CAP_NET_ADMIN), the ip and iptables commands and veth and bridge devices");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      n.tearDown();
      return new Network(instances, "interrupted while setting up network namespaces");
    }
  }

  boolean partitions() {
    return unavailableReason == null;
  }

  String unavailableReason() {
    return unavailableReason;
  }

  /** The address the brokers and the store listen on, and every process reaches them at. */
  String serverHost() {
    return partitions() ? SERVER_IP : "127.0.0.1";
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
      run("ip", "netns", "exec", namespace(i), "iptables", "-A", "OUTPUT", "-p", "tcp", "-d", SERVER_IP,
          "--dport", Integer.toString(port), "-j", "DROP");
      run("ip", "netns", "exec", namespace(i), "iptables", "-A", "INPUT", "-p", "tcp", "-s", SERVER_IP,
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
    if (partitions()) {
      tearDown();
    }
  }

  private void tearDown() {
    for (int i = 0; i < instances; i++) {
      quietly("ip", "link", "del", hostSide(i));
      quietly("ip", "netns", "del", namespace(i));
    }
    quietly("ip", "link", "del", BRIDGE);
  }

  private static String namespace(int i) {
    return "dsc-i" + i;
  }

  private static String hostSide(int i) {
    return "dsc-h" + i;
  }

  private static String nsSide(int i) {
    return "dsc-n" + i;
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
