package io.dimstream.topology;

/**
 * A key leaving the SCD2 processor: the bytes to write as record key, and the canonical business key the versions
 * partitioner hashes (null for a record bound for the DLQ).
 */
record OutKey(byte[] businessKey, byte[] recordKey) {}
