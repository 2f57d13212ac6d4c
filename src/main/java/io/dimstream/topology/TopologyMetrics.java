package io.dimstream.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * The topology's own counters, registered with Kafka Streams' metrics (group {@code dimstream}, one set per task)
 * so they show up in {@code KafkaStreams.metrics()}, JMX and the query endpoint's {@code /metrics}.
 */
final class TopologyMetrics implements AutoCloseable {
  /** Metric group of every dimstream counter. */
  static final String GROUP = "dimstream";
  static final String EVENTS_IN = "events-in-total";
  static final String VERSIONS_OUT = "versions-out-total";
  static final String LATE_SPLICED = "late-events-spliced-total";
  static final String DLQ_RECORDS = "dlq-records-total";
  static final String TOMBSTONES_SKIPPED = "tombstones-skipped-total";

  private final ProcessorContext<?, ?> context;
  private final List<Sensor> sensors = new ArrayList<>();

  TopologyMetrics(ProcessorContext<?, ?> context) {
    this.context = context;
  }

  /** A counter for this task; sensor names carry the processor and task so tasks never collide. */
  Sensor counter(String processor, String metric, String description) {
    String task = context.taskId().toString();
    Sensor sensor = context.metrics().addSensor(GROUP + "." + processor + "." + task + "." + metric,
        Sensor.RecordingLevel.INFO);
    sensor.add(new MetricName(metric, GROUP, description, Map.of("task-id", task, "processor", processor)),
        new CumulativeSum());
    sensors.add(sensor);
    return sensor;
  }

  @Override
  public void close() {
    sensors.forEach(s -> context.metrics().removeSensor(s));
    sensors.clear();
  }
}
