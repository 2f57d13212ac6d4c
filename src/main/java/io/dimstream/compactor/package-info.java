/** Moves version records from the versions topic into the Delta table, exactly once, in periodic commits. */
package io.dimstream.compactor;
