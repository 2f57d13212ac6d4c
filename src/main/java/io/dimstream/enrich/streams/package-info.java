/** The enrichment as Kafka Streams processors, in the dimension's own application, co-partitioned with its versions topic. */
package io.dimstream.enrich.streams;
