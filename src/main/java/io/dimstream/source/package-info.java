/** Database sources: a table's changes captured by Debezium's embedded engine into the changes topic. */
package io.dimstream.source;
