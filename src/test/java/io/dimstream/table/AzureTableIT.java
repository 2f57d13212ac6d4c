package io.dimstream.table;

import static io.dimstream.table.Versions.scan;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.AzuriteServer;
import io.dimstream.storage.ObjectStores;
import io.dimstream.storage.TableLocation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A dimension table on Azure Blob Storage (Azurite on 127.0.0.1): the same commits give the same rows as on a local
 * disk through checkpoints, time travel, optimize and vacuum, also through an ADLS Gen2 URI; writers racing on one
 * version leave a gap-free log with every commit once.
 */
class AzureTableIT extends ObjectStoreTableContract {
  static AzuriteServer azurite;

  @BeforeAll
  static void start() throws Exception {
    azurite = AzuriteServer.start();
  }

  @AfterAll
  static void stop() {
    azurite.close();
  }

  @Override
  ObjectStore store(String container, String prefix) {
    return azurite.store(container, prefix);
  }

  @Override
  String scheme() {
    return "az";
  }

  @Override
  void alsoCheck(DeltaTable reopened, DeltaTable local) {
    DeltaTable gen2 = DeltaTable.open(ObjectStores.open(TableLocation.parse(
        "abfss://dims@" + AzuriteServer.ACCOUNT + ".dfs.core.windows.net/warehouse/customers"), azurite.settings()));
    assertThat(scan(gen2.latest())).as("the same table through its ADLS Gen2 URI").isEqualTo(scan(local.latest()));
    assertThat(gen2.history()).extracting(CommitSummary::version).startsWith(reopened.latest().version());
  }
}
