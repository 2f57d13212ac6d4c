package io.dimstream.bench;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The embedded broker's request counts by API (Produce, Fetch, EndTxn, ...) from its JMX request metrics in this
 * JVM, so a run reports how many requests each change event costs the broker: the broker's CPU follows requests
 * more than records.
 */
final class BrokerRequests {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  private BrokerRequests() {}

  /** Requests served so far, by API name (all versions of an API summed). */
  static Map<String, Long> read() {
    Map<String, Long> out = new TreeMap<>();
    try {
      for (ObjectName n : JMX.queryNames(new ObjectName(
          "kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
        Object count = JMX.getAttribute(n, "Count");
        out.merge(n.getKeyProperty("request"), ((Number) count).longValue(), Long::sum);
      }
    } catch (JMException e) {
      throw new IllegalStateException("cannot read the broker's request metrics from JMX: " + e, e);
    }
    return out;
  }

  /** Requests served since {@code before}, by API name; APIs with none are left out. */
  static Map<String, Long> since(Map<String, Long> before) {
    Map<String, Long> out = new TreeMap<>();
    read().forEach((api, n) -> {
      long d = n - before.getOrDefault(api, 0L);
      if (d > 0) {
        out.put(api, d);
      }
    });
    return out;
  }
}
