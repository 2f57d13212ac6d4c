package io.dimstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import io.dimstream.topology.SnapshotMarkers;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;

/** {@code produce --snapshot --at T}: the rows of a full snapshot with its headers, then one marker per partition. */
final class SnapshotProduce {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String topic;
  private final String sequenceColumn;
  private final String at;
  private final JsonNode atNode;
  private final String id = UUID.randomUUID().toString();

  SnapshotProduce(DimensionSpec spec, String at) {
    if (spec.inputFormat() != InputFormat.JSON) {
      throw new CliErrors.UsageError("--snapshot sends JSON rows, but the spec's format is "
          + spec.inputFormat().specName() + ". Fix: apply the snapshot to the table with `dimstream apply-snapshot`");
    }
    if (spec.sequence().size() != 1) {
      throw new CliErrors.UsageError("--snapshot needs a single sequence column (--at gives one value), but the "
          + "sequence is " + spec.sequence() + ". Fix: send the rows with their sequences without --snapshot");
    }
    try {
      SnapshotMarkers.at(spec, at);
    } catch (RuntimeException e) {
      throw new CliErrors.UsageError("--at '" + at + "' is not a value of the sequence column '"
          + spec.sequence().get(0) + "': " + e.getMessage() + ". Fix: give e.g. 2026-03-02T00:00:00Z");
    }
    this.topic = spec.topics().changes();
    this.sequenceColumn = spec.sequence().get(0);
    this.at = at;
    JsonNode n;
    try {
      n = JSON.getNodeFactory().numberNode(Long.parseLong(at.trim()));
    } catch (NumberFormatException e) {
      n = JSON.getNodeFactory().textNode(at.trim());
    }
    this.atNode = n;
  }

  /** The snapshot's id, in the headers of its rows and markers. */
  String id() {
    return id;
  }

  /** One row, its sequence set to {@code --at} when it has none, with the snapshot's headers. */
  ProducerRecord<byte[], byte[]> row(byte[] value) {
    byte[] out = value;
    try {
      JsonNode row = JSON.readTree(value);
      if (row instanceof ObjectNode o && (!o.has(sequenceColumn) || o.get(sequenceColumn).isNull())) {
        o.set(sequenceColumn, atNode);
        out = o.toString().getBytes(StandardCharsets.UTF_8);
      }
    } catch (java.io.IOException e) {
      // sent as it is: the topology rejects it to the DLQ as malformed-json, like any bad record
    }
    return new ProducerRecord<>(topic, (Integer) null, (byte[]) null, out, SnapshotMarkers.rowHeaders(id, at));
  }

  /** The end-of-snapshot marker for {@code partition} of {@code partitions}. */
  ProducerRecord<byte[], byte[]> marker(int partition, int partitions) {
    return new ProducerRecord<>(topic, partition, (byte[]) null, SnapshotMarkers.markerValue(id, at, partition, partitions),
        SnapshotMarkers.markerHeaders(id, at, partition, partitions));
  }
}
