/** Change events on the changes topic: decoders for JSON, Avro and Debezium JSON, and the reasons a record is rejected. */
package io.dimstream.change;
