package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on {@link S3Store} against a second, independent S3 implementation: moto's server (Python), run
 * as a process. moto answers a create of a taken key with 412 PreconditionFailed, as S3 does, but checks
 * {@code If-None-Match} and then writes without a lock between the two: of writers racing for one key more than one
 * may be answered 200, and the object holds the bytes of the last of them. So on moto a commit race can lose a commit
 * that was answered as committed; the tables' race tests run on s3proxy, whose check is atomic.
 */
class MotoS3StoreIT extends ObjectStoreContract {
  static MotoServer moto;

  @BeforeAll
  static void start() throws Exception {
    moto = MotoServer.start();
    moto.createBucket("contract");
  }

  @AfterAll
  static void stop() {
    moto.close();
  }

  @Override
  protected ObjectStore store(String table) {
    return moto.store(moto.endpoint(), "contract", table);
  }

  @Override
  protected boolean createIsAtomic() {
    return false;
  }

  @Test
  void shouldListPastOnePageOfAThousandKeys() throws Exception {
    ObjectStore store = store("paging");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (int i = 0; i < 1_050; i++) {
        String key = String.format("_delta_log/%020d.json", i);
        puts.add(pool.submit(() -> {
          store.put(key, "x".getBytes(StandardCharsets.UTF_8));
          return null;
        }));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    List<ObjectInfo> all = store.list("_delta_log/", null);
    assertThat(all).hasSize(1_050);
    assertThat(all.get(1_049).key()).isEqualTo(String.format("_delta_log/%020d.json", 1_049));
    assertThat(store.list("_delta_log/", String.format("_delta_log/%020d.json", 1_000))).hasSize(49);
  }
}
