package io.dimstream.table.internal.actions;

import io.dimstream.table.internal.dv.DeletionVectorDescriptor;

/** A logical file's identity in log replay, as the protocol defines it: (path, deletionVector.uniqueId). */
final class FileIds {
  private FileIds() {}

  static String of(String path, DeletionVectorDescriptor dv) {
    // '\n' cannot occur in a path of the log, so the pair maps to one string without ambiguity
    return dv == null ? path : path + '\n' + dv.uniqueId();
  }
}
