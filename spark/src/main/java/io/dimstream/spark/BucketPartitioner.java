package io.dimstream.spark;

import org.apache.spark.Partitioner;

/** One shuffle partition per table bucket: a bucket's events all reach one task, which writes the bucket's files. */
final class BucketPartitioner extends Partitioner {
  private static final long serialVersionUID = 1L;
  private final int buckets;

  BucketPartitioner(int buckets) {
    this.buckets = buckets;
  }

  @Override
  public int numPartitions() {
    return buckets;
  }

  @Override
  public int getPartition(Object key) {
    return ((EventKey) key).bucket;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BucketPartitioner p && p.buckets == buckets;
  }

  @Override
  public int hashCode() {
    return buckets;
  }
}
