package io.dimstream.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the CPU samples of a JFR recording went: the top methods by self samples and by inclusive samples
 * (a method anywhere on the stack, counted once per sample), optionally only for threads whose name contains
 * a filter, and optionally only the samples with a frame whose class.method contains a second filter (e.g.
 * {@code ChangeCommit.commit}: where one code path's time went). Usage:
 * {@code JfrTop <file.jfr> [thread-filter] [rows] [frame-filter]}.
 */
public final class JfrTop {
  private JfrTop() {}

  public static void main(String[] args) throws Exception {
    String filter = args.length > 1 ? args[1] : "";
    int rows = args.length > 2 ? Integer.parseInt(args[2]) : 25;
    String frameFilter = args.length > 3 ? args[3] : "";
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> inclusive = new HashMap<>();
    Map<String, Integer> threads = new HashMap<>();
    int samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
      if (thread == null || !thread.contains(filter)) {
        continue;
      }
      List<RecordedFrame> frames = e.getStackTrace().getFrames();
      if (frames.isEmpty() || frames.stream().noneMatch(f -> name(f).contains(frameFilter))) {
        continue;
      }
      samples++;
      threads.merge(thread.replaceAll("-\\d+$", "-N"), 1, Integer::sum);
      self.merge(name(frames.get(0)), 1, Integer::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        if (seen.add(name(f))) {
          inclusive.merge(name(f), 1, Integer::sum);
        }
      }
    }
    System.out.printf("%d execution samples%s%s%n", samples,
        filter.isEmpty() ? "" : " in threads matching '" + filter + "'",
        frameFilter.isEmpty() ? "" : " under frames matching '" + frameFilter + "'");
    print("threads", threads, samples, 10);
    print("self", self, samples, rows);
    print("inclusive", inclusive, samples, rows);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(String title, Map<String, Integer> counts, int total, int rows) {
    System.out.println("-- " + title);
    counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(rows)
        .forEach(e -> System.out.printf("%6.1f%%  %s%n", 100.0 * e.getValue() / Math.max(1, total), e.getKey()));
  }
}
