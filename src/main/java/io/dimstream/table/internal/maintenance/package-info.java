/** Maintenance of a table: optimize, vacuum, and checkpoint writing. */
package io.dimstream.table.internal.maintenance;
