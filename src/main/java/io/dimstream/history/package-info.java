/** The pure SCD2 logic: versions, the reference fold of docs/concepts.md, and the incremental engine. */
package io.dimstream.history;
