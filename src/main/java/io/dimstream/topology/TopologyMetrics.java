package io.dimstream.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * The topology's own counters, registered with Kafka Streams' metrics (group {@value #GROUP}, one set per task and
 * processor) so they show up in {@code KafkaStreams.metrics()}, JMX and the query endpoint's {@code /metrics}.
 * Read them with {@link #total}.
 */
public final class TopologyMetrics implements AutoCloseable {
  /** Metric group of every dimstream counter. */
  public static final String GROUP = "dimstream";
  /** The tag of {@link Counter#UNKNOWN_FIELDS} that names the field. */
  public static final String FIELD_TAG = "field";

  /** The counters, by their Kafka metric name; each is a cumulative sum that only grows while a task runs. */
  public enum Counter {
    /** Change events applied to history (on time or late). */
    EVENTS_IN("events-in-total"),
    /** Version records emitted to the versions topic. */
    VERSIONS_OUT("versions-out-total"),
    /** Late events spliced into a key's history. */
    LATE_SPLICED("late-events-spliced-total"),
    /** Records sent to the dead-letter topic, by the decoder and by the SCD2 processor. */
    DLQ_RECORDS("dlq-records-total"),
    /** Debezium tombstones that follow deletes, skipped under {@code delete: debezium}. */
    TOMBSTONES_SKIPPED("tombstones-skipped-total"),
    /** Fields the spec does not declare, by field name (tag {@value TopologyMetrics#FIELD_TAG}); unknown_fields: warn. */
    UNKNOWN_FIELDS("unknown-fields-total");

    private final String metricName;

    Counter(String metricName) {
      this.metricName = metricName;
    }

    /** The name of the metric in group {@value TopologyMetrics#GROUP}. */
    public String metricName() {
      return metricName;
    }
  }

  private final ProcessorContext<?, ?> context;
  private final List<Sensor> sensors = new ArrayList<>();

  TopologyMetrics(ProcessorContext<?, ?> context) {
    this.context = context;
  }

  /**
   * Sums {@code counter} over every task and processor in {@code metrics} (e.g. {@code KafkaStreams.metrics()}).
   *
   * @return 0 when no task registered it yet
   */
  public static double total(Map<MetricName, ? extends Metric> metrics, Counter counter) {
    double sum = 0;
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      if (e.getKey().name().equals(counter.metricName()) && e.getKey().group().equals(GROUP)
          && e.getValue().metricValue() instanceof Number n) {
        sum += n.doubleValue();
      }
    }
    return sum;
  }

  /**
   * Sums {@code counter} per value of its tag {@code tag} over every task and processor in {@code metrics}.
   *
   * @return tag value to sum, sorted by tag value; empty when no task registered it yet
   */
  public static Map<String, Double> totalsBy(Map<MetricName, ? extends Metric> metrics, Counter counter, String tag) {
    Map<String, Double> out = new java.util.TreeMap<>();
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.name().equals(counter.metricName()) && n.group().equals(GROUP) && n.tags().containsKey(tag)
          && e.getValue().metricValue() instanceof Number v) {
        out.merge(n.tags().get(tag), v.doubleValue(), Double::sum);
      }
    }
    return out;
  }

  /** A counter for this task; sensor names carry the processor and task so tasks never collide. */
  Sensor counter(String processor, Counter counter, String description) {
    return counter(processor, counter, description, Map.of());
  }

  /** A counter for this task with extra tags (e.g. the field name); the tags are part of the sensor's name. */
  Sensor counter(String processor, Counter counter, String description, Map<String, String> extraTags) {
    String task = context.taskId().toString();
    String metric = counter.metricName();
    Map<String, String> tags = new java.util.LinkedHashMap<>(extraTags);
    tags.put("task-id", task);
    tags.put("processor", processor);
    Sensor sensor = context.metrics().addSensor(GROUP + "." + processor + "." + task + "." + metric
        + (extraTags.isEmpty() ? "" : "." + extraTags), Sensor.RecordingLevel.INFO);
    sensor.add(new MetricName(metric, GROUP, description, tags), new CumulativeSum());
    sensors.add(sensor);
    return sensor;
  }

  @Override
  public void close() {
    sensors.forEach(s -> context.metrics().removeSensor(s));
    sensors.clear();
  }
}
