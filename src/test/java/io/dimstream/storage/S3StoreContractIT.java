package io.dimstream.storage;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store contract on S3 (s3proxy on 127.0.0.1). */
class S3StoreContractIT extends ObjectStoreContract {
  static S3ProxyServer s3;

  @BeforeAll
  static void start() throws Exception {
    s3 = S3ProxyServer.inMemory();
  }

  @AfterAll
  static void stop() throws Exception {
    s3.close();
  }

  @Override
  protected ObjectStore store(String table) {
    return s3.store("contract", table);
  }
}
