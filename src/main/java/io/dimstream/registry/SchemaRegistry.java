package io.dimstream.registry;

import java.util.Optional;

/**
 * Writer schemas by id. A registry that does not answer is not the record's fault: {@link #schema} waits for it
 * (with back-off) rather than failing, and {@link #outage} says why records wait. Thread-safe.
 */
public interface SchemaRegistry extends AutoCloseable {

  /**
   * The schema registered under {@code id}, waiting while the registry cannot be reached or answers with an error
   * other than "not found".
   *
   * @throws UnknownSchemaIdException when the registry answers that it has no schema with this id
   * @throws RegistryClosedException  when {@link #close} is called while waiting, or was called before
   */
  RegisteredSchema schema(int id);

  /** Why records wait for their schema right now (whom the registry failed to answer, since when); empty when none. */
  Optional<String> outage();

  /** Stops waiting: every caller blocked in {@link #schema} gets a {@link RegistryClosedException}. */
  @Override
  void close();
}
