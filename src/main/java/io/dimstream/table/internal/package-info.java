/** Internals of the table facade, free to change: the error factory and table properties; one concept per sub-package. */
package io.dimstream.table.internal;
