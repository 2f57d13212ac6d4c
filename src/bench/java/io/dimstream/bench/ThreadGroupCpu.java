package io.dimstream.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a child JVM's CPU goes, by kind of thread: each thread's {@code cpu=} from two {@code jcmd Thread.print}
 * dumps, the difference summed over the threads whose names are alike once dimension names and numbers are taken
 * out. Linux shortens thread names to 15 characters in /proc, too short to tell a stream thread from a compactor, so
 * the JVM's own dump is read.
 */
final class ThreadGroupCpu {
  /** A thread line of the dump: {@code "name" #12 [1234] daemon prio=5 os_prio=0 cpu=12.34ms elapsed=...}. */
  private static final Pattern THREAD = Pattern.compile("^\"(.*)\" .*?cpu=([0-9.]+)ms");

  private ThreadGroupCpu() {}

  /** CPU milliseconds so far of every thread of {@code pid}, by thread name (alike names summed). */
  static Map<String, Double> sample(long pid) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true)
        .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(1, TimeUnit.MINUTES);
    Map<String, Double> cpu = new HashMap<>();
    for (String line : out.lines().toList()) {
      Matcher m = THREAD.matcher(line);
      if (m.find()) {
        cpu.merge(m.group(1), Double.parseDouble(m.group(2)), Double::sum);
      }
    }
    return cpu;
  }

  /**
   * The CPU milliseconds spent between two samples, by thread group: names with each of {@code dimensions} replaced by
   * {@code <dim>}, every UUID by {@code UUID} and every number by {@code N}; the largest groups first. A thread that ended in between is missed.
   */
  static Map<String, Double> byGroup(Map<String, Double> before, Map<String, Double> after, List<String> dimensions) {
    Map<String, Double> groups = new HashMap<>();
    after.forEach((name, ms) -> {
      double spent = ms - before.getOrDefault(name, 0.0);
      if (spent > 0) {
        groups.merge(group(name, dimensions), spent, Double::sum);
      }
    });
    Map<String, Double> sorted = new LinkedHashMap<>();
    groups.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return sorted;
  }

  private static String group(String name, List<String> dimensions) {
    String g = name;
    // longest names first, so that "d_10" is not taken for "d_1" followed by "0"
    for (String d : dimensions.stream().sorted((a, b) -> b.length() - a.length()).toList()) {
      g = g.replace(d, "<dim>");
    }
    return ThreadCpu.group(g); // a Kafka Streams client id holds a UUID
  }
}
