/** The pure SCD2 logic: versions, the reference fold of DESIGN.md section 1, and the incremental engine. */
package io.dimstream.history;
