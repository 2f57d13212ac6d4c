/** The position index: where the current rows of a merge-on-read table are, so a commit finds them without reading. */
package io.dimstream.table.internal.index;
