/** The Kafka Streams topology of one dimension: decode, re-key, the SCD2 processor with its RocksDB stores, sinks. */
package io.dimstream.topology;
