package io.dimstream.topology;

import io.dimstream.DimstreamException;

/** A dimension the topology cannot run as specified; the message says what, why and how to fix it. */
public final class TopologyException extends DimstreamException {
  TopologyException(String message) {
    super(message);
  }
}
