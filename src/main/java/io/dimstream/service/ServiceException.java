package io.dimstream.service;

import io.dimstream.DimstreamException;

/** A running dimension could not do what it was asked: no broker to talk to, a topic that cannot be read. */
public final class ServiceException extends DimstreamException {
  ServiceException(String message) {
    super(message);
  }

  ServiceException(String message, Throwable cause) {
    super(message, cause);
  }
}
