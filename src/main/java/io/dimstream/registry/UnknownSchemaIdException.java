package io.dimstream.registry;

import io.dimstream.DimstreamException;

/** The registry answered that it holds no schema with the id a record names: bad input, not an outage. */
public final class UnknownSchemaIdException extends DimstreamException {
  private final int id;

  public UnknownSchemaIdException(int id, String message) {
    super(message);
    this.id = id;
  }

  public int id() {
    return id;
  }
}
