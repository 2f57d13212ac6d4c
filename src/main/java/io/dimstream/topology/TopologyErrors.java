package io.dimstream.topology;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;

/** Builds every {@link TopologyException}. */
final class TopologyErrors {
  private TopologyErrors() {}

  static TopologyException unusableVersionsSchema(DimensionSpec spec, String why) {
    String where = spec.source() == null ? "dimension '" + spec.name() + "'" : spec.source().toString();
    return new TopologyException(where + ": field 'versions_format': avro version records cannot be built for this "
        + "dimension: " + why + ". Fix: rename the column (Avro names are letters, digits and '_', not starting with "
        + "a digit, and 'change' is taken by the change field), or set versions_format: json");
  }

  /** The DLQ detail of a change record that sits in another partition than its business key's. */
  static String wrongPartition(DimensionSpec spec, byte[] canonicalKey, String topic, int arrived, int belongs,
      int partitions) {
    return "the record's business key " + new String(canonicalKey, java.nio.charset.StandardCharsets.UTF_8)
        + " belongs in partition " + belongs + " of the " + partitions + " partitions of " + topic
        + " (murmur2 of its canonical key bytes), but it arrived in partition " + arrived + "; applying it there "
        + "could split the key's history between two tasks, so it was not applied. Fix: key every change record by "
        + "its canonical business key and use Kafka's default partitioner (as `dimstream produce` does), then send "
        + "this record again; or remove topics.changes_keyed_by_business_key from the spec of '" + spec.name()
        + "' to repartition every record";
  }

  static TopologyException changesPartitionsUnknown(DimensionSpec spec, Object value) {
    String where = spec.source() == null ? "dimension '" + spec.name() + "'" : spec.source().toString();
    return new TopologyException(where + ": field 'topics.changes_keyed_by_business_key' is true, but the partition "
        + "count of " + spec.topics().changes() + " is " + (value == null ? "not given" : "'" + value + "'")
        + " in the Streams property " + DimensionTopology.CHANGES_PARTITIONS_CONFIG + ", so no record can be checked "
        + "against its key's partition. Fix: run the topology through `dimstream run` (which reads the count from "
        + "the broker), or set " + DimensionTopology.CHANGES_PARTITIONS_CONFIG + " to the topic's partition count");
  }

  static TopologyException unreadableStateLayouts(DimensionSpec spec, Object value, String why) {
    String where = spec.source() == null ? "dimension '" + spec.name() + "'" : spec.source().toString();
    return new TopologyException(where + ": the Streams property " + DimensionTopology.STATE_LAYOUTS_CONFIG + " is '"
        + value + "', which cannot describe this dimension's stored state: " + why + ". Fix: run the topology"
        + " through `dimstream run` (which takes it from the table property " + StateLayouts.PROPERTY + "), or set it"
        + " to that property's value");
  }
}
