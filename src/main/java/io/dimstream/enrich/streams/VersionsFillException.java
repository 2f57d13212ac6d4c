package io.dimstream.enrich.streams;

import io.dimstream.topology.ThreadStoppingException;

/**
 * An enrichment could not read the versions written before it ({@link VersionsFill}): its stream thread stops rather
 * than enrich facts without them; the record it was about to process is not a bad record.
 */
public final class VersionsFillException extends ThreadStoppingException {
  VersionsFillException(String message, Throwable cause) {
    super(message, cause);
  }
}
