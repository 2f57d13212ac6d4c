package io.dimstream.registry;

import io.dimstream.DimstreamException;

/** A caller waited for a schema while the service shut down: the record was not read and will be read again. */
public final class RegistryClosedException extends DimstreamException {
  RegistryClosedException(String message) {
    super(message);
  }
}
