/** Where a table lives (a local path or an object store URI) and the one interface the table layer reads and writes it through. */
package io.dimstream.storage;
