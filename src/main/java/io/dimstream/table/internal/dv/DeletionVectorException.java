package io.dimstream.table.internal.dv;

import io.dimstream.DimstreamException;
import java.io.IOException;

/** A deletion vector that cannot be read or written; every message names the DV and how to fix it. */
public final class DeletionVectorException extends DimstreamException {
  private DeletionVectorException(String message, Throwable cause) {
    super(message, cause);
  }

  static DeletionVectorException corrupt(String where, String problem) {
    return new DeletionVectorException(where + ": not a valid deletion vector: " + problem
        + ". The table's rows cannot be known without it. Fix: restore the file from a backup, or time-travel to a "
        + "table version before the commit that added it.", null);
  }

  static DeletionVectorException missing(String file) {
    return new DeletionVectorException(file + ": the deletion vector file the log refers to is missing, so the rows "
        + "it deletes cannot be known. Fix: restore it from a backup; a VACUUM with a retention shorter than the "
        + "readers' lag can remove files still in use.", null);
  }

  static DeletionVectorException unreadable(String file, IOException cause) {
    return new DeletionVectorException(file + ": cannot read the deletion vector file (" + cause.getMessage()
        + "). Fix: check the file's permissions and the disk.", cause);
  }

  static DeletionVectorException unwritable(String file, IOException cause) {
    return new DeletionVectorException(file + ": cannot write the deletion vector file (" + cause.getMessage()
        + "). Fix: check that the table directory is writable and the disk is not full.", cause);
  }
}
