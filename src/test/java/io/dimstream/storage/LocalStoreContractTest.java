package io.dimstream.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on a local directory. */
class LocalStoreContractTest extends ObjectStoreContract {
  @TempDir
  Path dir;

  @Override
  protected ObjectStore store(String table) {
    return ObjectStores.open(TableLocation.local(dir.resolve(table)));
  }
}
