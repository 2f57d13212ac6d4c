/** JSON and Avro encodings of change events and version records. */
package io.dimstream.codec;
