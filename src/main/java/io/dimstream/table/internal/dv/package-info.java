/** Deletion vectors as the Delta protocol defines them: descriptors, the RoaringBitmapArray format, DV files. */
package io.dimstream.table.internal.dv;
