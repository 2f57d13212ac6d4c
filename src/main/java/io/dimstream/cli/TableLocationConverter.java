package io.dimstream.cli;

import io.dimstream.storage.StorageException;
import io.dimstream.storage.TableLocation;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --table}: a local path or an object store URI; an unsupported scheme is a usage error naming the forms. */
final class TableLocationConverter implements ITypeConverter<TableLocation> {
  @Override
  public TableLocation convert(String value) {
    try {
      return TableLocation.parse(value);
    } catch (StorageException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
