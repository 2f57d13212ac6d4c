package io.dimstream.spec;

import io.dimstream.DimstreamException;

/** A dimension spec that cannot be used; the message names the file, the field and the fix. */
public final class SpecException extends DimstreamException {
  public SpecException(String message) {
    super(message);
  }
}
