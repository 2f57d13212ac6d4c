/**
 * Column types and their in-memory values: the ground floor every other package stands on, knowing nothing of the
 * spec, Kafka or the table.
 */
package io.dimstream.types;
