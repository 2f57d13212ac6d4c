package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.azure.storage.blob.sas.BlobContainerSasPermission;
import com.azure.storage.blob.sas.BlobServiceSasSignatureValues;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@link AzureStore} against Azurite on 127.0.0.1: the store contract, ADLS Gen2 URIs, a missing container, the
 * account key and SAS credentials, and secrets kept out of messages and logs.
 */
class AzureStoreIT extends ObjectStoreContract {
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
  protected ObjectStore store(String table) {
    return azurite.store("contract", table);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldReachTheSameObjectsThroughAnAdlsGen2Uri() throws Exception {
    ObjectStore az = azurite.store("lake", "warehouse/customers");
    az.put("_delta_log/00000000000000000000.json", utf8("commit 0"));
    TableLocation abfss = TableLocation.parse(
        "abfss://lake@" + AzuriteServer.ACCOUNT + ".dfs.core.windows.net/warehouse/customers/");
    ObjectStore gen2 = ObjectStores.open(abfss, azurite.settings());
    assertThat(gen2.location().toString())
        .isEqualTo("abfss://lake@devstoreaccount1.dfs.core.windows.net/warehouse/customers");
    assertThat(gen2.read("_delta_log/00000000000000000000.json")).isEqualTo(utf8("commit 0"));
    assertThat(gen2.putIfAbsent("_delta_log/00000000000000000000.json", utf8("other"), 0)).isFalse();

    TableLocation elsewhere = TableLocation.parse("abfss://lake@otheraccount.dfs.core.windows.net/customers");
    assertThatThrownBy(() -> ObjectStores.open(elsewhere, azurite.settings())).isInstanceOf(StorageException.class)
        .hasMessageContaining("'otheraccount'").hasMessageContaining("connection string is for 'devstoreaccount1'");
  }

  @Test
  void shouldSayThatTheContainerIsMissingAndHowToCreateIt() {
    ObjectStore store = ObjectStores.open(TableLocation.azure("nosuchcontainer", "t"), azurite.settings());
    assertThatThrownBy(() -> store.putIfAbsent("_delta_log/00000000000000000000.json", utf8("x"), 0))
        .isInstanceOf(NoSuchFileException.class).hasMessageContaining("the container 'nosuchcontainer' does not exist")
        .hasMessageContaining("az storage container create");
    assertThatThrownBy(() -> store.list("_delta_log/", null)).hasMessageContaining("does not exist");
  }

  @Test
  void shouldWorkWithAnAccountKeyOrASasTokenAndNeverShowEither() throws Exception {
    azurite.createContainer("creds");
    AzureSettings byKey = AzureSettings.defaults().withAccount(AzuriteServer.ACCOUNT)
        .withEndpoint(azurite.blobEndpoint()).withAccountKey(AzuriteServer.KEY);
    ObjectStore keyed = ObjectStores.open(TableLocation.azure("creds", "t"),
        StorageSettings.defaults().withAzure(byKey));
    assertThat(keyed.putIfAbsent("_delta_log/00000000000000000000.json", utf8("by key"), 0)).isTrue();

    String readOnlySas = azurite.client().getBlobContainerClient("creds").generateSas(
        new BlobServiceSasSignatureValues(OffsetDateTime.now().plusHours(1),
            new BlobContainerSasPermission().setReadPermission(true).setListPermission(true)));
    AzureSettings bySas = AzureSettings.defaults().withEndpoint(azurite.blobEndpoint()).withSasToken("?" + readOnlySas);
    ObjectStore reader = ObjectStores.open(TableLocation.azure("creds", "t"),
        StorageSettings.defaults().withAzure(bySas));
    assertThat(reader.read("_delta_log/00000000000000000000.json")).isEqualTo(utf8("by key"));
    assertThat(reader.list("_delta_log/", null)).hasSize(1);

    String wrongKey = AzuriteServer.KEY.substring(0, 20) + "WRONGWRONGWRONG" + AzuriteServer.KEY.substring(35);
    ObjectStore wrong = ObjectStores.open(TableLocation.azure("creds", "t"),
        StorageSettings.defaults().withAzure(byKey.withAccountKey(wrongKey)));

    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Level before = root.getLevel();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    root.setLevel(Level.DEBUG);
    try {
      assertThatThrownBy(() -> reader.put("_delta_log/_last_checkpoint", utf8("{}")))
          .as("the SAS grants no write").hasMessageContaining("403");
      assertThatThrownBy(() -> wrong.read("_delta_log/00000000000000000000.json")).hasMessageContaining("403")
          .hasMessageContaining("credentials")
          .satisfies(e -> assertThat(messages(e)).doesNotContain(wrongKey).doesNotContain(sasSignature(readOnlySas)));
      assertThatThrownBy(() -> reader.putIfAbsent("_delta_log/00000000000000000001.json", utf8("x"), 0))
          .satisfies(e -> assertThat(messages(e)).doesNotContain(sasSignature(readOnlySas)));
    } finally {
      root.detachAppender(logs);
      root.setLevel(before);
    }
    List<String> logged = logs.list.stream().map(ev -> ev.getFormattedMessage()
        + (ev.getThrowableProxy() == null ? "" : " " + ev.getThrowableProxy().getMessage())).toList();
    assertThat(logged).as("something was logged at DEBUG").isNotEmpty();
    assertThat(String.join("\n", logged)).doesNotContain(wrongKey).doesNotContain(AzuriteServer.KEY)
        .doesNotContain(sasSignature(readOnlySas));
    assertThat(byKey.toString()).doesNotContain(AzuriteServer.KEY).contains("accountKey=***");
    assertThat(azurite.settings().toString()).doesNotContain(AzuriteServer.KEY).contains("connectionString=***");
  }

  /** The signature of a SAS token, its secret part. */
  private static String sasSignature(String sas) {
    for (String part : sas.split("&")) {
      if (part.startsWith("sig=")) {
        return part.substring(4);
      }
    }
    throw new AssertionError("no signature in the SAS token");
  }

  /** The messages of a throwable and all its causes. */
  private static String messages(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append(t).append('\n');
    }
    return b.toString();
  }
}
