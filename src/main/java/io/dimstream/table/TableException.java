package io.dimstream.table;

import io.dimstream.DimstreamException;

/** An error reading or writing a dimension table; built only by {@link TableErrors}. */
public class TableException extends DimstreamException {
  public TableException(String message) {
    super(message);
  }

  public TableException(String message, Throwable cause) {
    super(message, cause);
  }
}
