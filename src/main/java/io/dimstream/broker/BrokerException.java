package io.dimstream.broker;

import io.dimstream.DimstreamException;

/** The embedded broker could not start or stop, or a dimension's topics could not be provisioned. */
public final class BrokerException extends DimstreamException {
  BrokerException(String message) {
    super(message);
  }

  BrokerException(String message, Throwable cause) {
    super(message, cause);
  }
}
