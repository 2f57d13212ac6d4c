package io.dimstream.spec;

/**
 * Topic names of one dimension, and how its changes topic is partitioned. Defaults: {@code <name>.changes},
 * {@code <name>.versions}, {@code <name>.dlq}, not keyed.
 *
 * @param changesKeyed whether the spec declares ({@code topics.changes_keyed_by_business_key: true}) that every
 *                     change record sits in the changes-topic partition its canonical business key hashes to: the
 *                     topology then applies records in the partition they arrive in, without the repartition hop,
 *                     and sends a record in another partition to the dead-letter topic as {@code wrong-partition}
 */
public record Topics(String changes, String versions, String dlq, boolean changesKeyed) {
  /** Topics whose changes topic is not declared keyed: every record takes the repartition hop. */
  public Topics(String changes, String versions, String dlq) {
    this(changes, versions, dlq, false);
  }

  public static Topics defaults(String dimension) {
    return new Topics(dimension + ".changes", dimension + ".versions", dimension + ".dlq");
  }
}
