package io.dimstream.topology;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers of a streamed full snapshot. Each snapshot row carries {@link #SNAPSHOT_ID} and
 * {@link #SNAPSHOT_AT}; after the rows, one end-of-snapshot control record goes to every partition of the changes
 * topic with {@link #CONTROL} = {@value #END_OF_SNAPSHOT}, the same two headers, and {@link #PARTITION}/
 * {@link #PARTITIONS}. A consumer of the changes topic tells a control record apart by the {@link #CONTROL} header
 * (its value is also a JSON object with a {@code dimstream_control} field and no columns of the dimension).
 */
public final class SnapshotMarkers {
  /** Header on control records: what the record is ({@value #END_OF_SNAPSHOT}). */
  public static final String CONTROL = "dimstream.control";
  /** The value of {@link #CONTROL} on the end-of-snapshot marker. */
  public static final String END_OF_SNAPSHOT = "end-of-snapshot";
  /** Header on rows and markers: the snapshot's id (any text, unique per snapshot). */
  public static final String SNAPSHOT_ID = "dimstream.snapshot.id";
  /** Header on rows and markers: the snapshot's sequence, as the spec writes it. */
  public static final String SNAPSHOT_AT = "dimstream.snapshot.at";
  /** Header on markers: the changes-topic partition the marker was sent to. */
  public static final String PARTITION = "dimstream.snapshot.partition";
  /** Header on markers: how many partitions the changes topic has (one marker each). */
  public static final String PARTITIONS = "dimstream.snapshot.partitions";

  /** Key bytes of a marker on the repartition topic: no business key's JSON form starts with a zero byte. */
  static final byte[] MARKER_KEY = "\u0000end-of-snapshot".getBytes(StandardCharsets.UTF_8);

  private SnapshotMarkers() {}

  /** A snapshot row's or marker's snapshot: its id and sequence text. */
  public record SnapshotRef(String id, String at) {}

  /** An end-of-snapshot marker as it arrived from one changes-topic partition. */
  public record Marker(SnapshotRef snapshot, int partition, int partitions) {}

  /** Headers of one snapshot row. */
  public static Headers rowHeaders(String id, String at) {
    Headers h = new RecordHeaders();
    h.add(SNAPSHOT_ID, bytes(id));
    h.add(SNAPSHOT_AT, bytes(at));
    return h;
  }

  /** Headers of the marker for {@code partition} of {@code partitions}. */
  public static Headers markerHeaders(String id, String at, int partition, int partitions) {
    Headers h = rowHeaders(id, at);
    h.add(CONTROL, bytes(END_OF_SNAPSHOT));
    h.add(PARTITION, bytes(Integer.toString(partition)));
    h.add(PARTITIONS, bytes(Integer.toString(partitions)));
    return h;
  }

  /** The marker's value: readable JSON for consumers that do not look at headers. */
  public static byte[] markerValue(String id, String at, int partition, int partitions) {
    return bytes("{\"dimstream_control\":\"" + END_OF_SNAPSHOT + "\",\"snapshot\":" + quote(id) + ",\"at\":"
        + quote(at) + ",\"partition\":" + partition + ",\"partitions\":" + partitions + "}");
  }

  /**
   * The snapshot's sequence as the topology reads {@link #SNAPSHOT_AT}: the text as a value of the first sequence
   * column (an ISO-8601 timestamp or date, or a number).
   *
   * @throws RuntimeException when it is none
   */
  public static io.dimstream.model.Sequence at(io.dimstream.spec.DimensionSpec spec, String at) {
    return SnapshotTracker.parseAt(spec, at);
  }

  /** Whether the record is a control record (it is never decoded as a change). */
  static boolean isControl(Headers headers) {
    return headers.lastHeader(CONTROL) != null;
  }

  /**
   * A copy of a marker's headers that says it is the only marker of its snapshot (partition 0 of 1): what a task
   * reading a keyed changes topic, with no repartition hop, must wait for.
   */
  static Headers asOnlyMarker(Headers marker) {
    Headers h = new RecordHeaders(marker.toArray());
    h.remove(PARTITION);
    h.remove(PARTITIONS);
    h.add(PARTITION, bytes("0"));
    h.add(PARTITIONS, bytes("1"));
    return h;
  }

  /** The snapshot a row belongs to, if it carries one. */
  static Optional<SnapshotRef> snapshotOf(Headers headers) {
    String id = text(headers, SNAPSHOT_ID);
    String at = text(headers, SNAPSHOT_AT);
    return id == null || at == null ? Optional.empty() : Optional.of(new SnapshotRef(id, at));
  }

  /** The marker in {@code headers}; empty when a header is missing or unreadable. */
  static Optional<Marker> marker(Headers headers) {
    if (!END_OF_SNAPSHOT.equals(text(headers, CONTROL))) {
      return Optional.empty();
    }
    try {
      return snapshotOf(headers).map(s -> new Marker(s, Integer.parseInt(text(headers, PARTITION)),
          Integer.parseInt(text(headers, PARTITIONS))));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String text(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
