/** History questions over a dimension's versions (as of a time, one key's history, changes in a range), offline against the table and live against the service. */
package io.dimstream.query;
