package io.dimstream.storage;

import java.time.Duration;

/**
 * How to reach the Azure Blob Storage account of a table ({@code az://}, {@code abfss://}); everything optional, the
 * environment fills the gaps the way Azure's tools do ({@code AZURE_STORAGE_CONNECTION_STRING},
 * {@code AZURE_STORAGE_ACCOUNT} with {@code AZURE_STORAGE_KEY} or {@code AZURE_STORAGE_SAS_TOKEN}), and with no secret
 * anywhere {@code DefaultAzureCredential} (managed identity, workload identity, {@code az login}, a service
 * principal in {@code AZURE_CLIENT_ID}/{@code AZURE_TENANT_ID}/{@code AZURE_CLIENT_SECRET}). A secret given here
 * wins over the environment. {@link #toString()} never shows a secret.
 *
 * @param account          the storage account of {@code az://} tables; null: {@code AZURE_STORAGE_ACCOUNT}, else the
 *                         connection string's. An {@code abfss://} table names its account in the URI.
 * @param endpoint         the Blob service endpoint ({@code http://127.0.0.1:10000/devstoreaccount1} for Azurite, a
 *                         private endpoint, a sovereign cloud); null: the connection string's, else
 *                         {@code https://<account>.blob.core.windows.net}
 * @param connectionString a storage connection string (secret)
 * @param accountKey       the account's shared key (secret)
 * @param sasToken         a shared access signature (secret)
 * @param requestTimeout   the longest one attempt of a request may wait for an answer before it is retried
 * @param maxAttempts      attempts of a request on throttling (503 ServerBusy, 429) and transient errors, with
 *                         exponential backoff and full jitter
 */
public record AzureSettings(String account, String endpoint, String connectionString, String accountKey,
    String sasToken, Duration requestTimeout, int maxAttempts) {

  public AzureSettings {
    if (requestTimeout == null) {
      requestTimeout = StorageSettings.DEFAULT_REQUEST_TIMEOUT;
    }
    if (maxAttempts < 1) {
      maxAttempts = StorageSettings.DEFAULT_MAX_ATTEMPTS;
    }
  }

  /** Nothing set: the environment decides. */
  public static AzureSettings defaults() {
    return new AzureSettings(null, null, null, null, null, StorageSettings.DEFAULT_REQUEST_TIMEOUT,
        StorageSettings.DEFAULT_MAX_ATTEMPTS);
  }

  public AzureSettings withAccount(String a) {
    return new AzureSettings(a, endpoint, connectionString, accountKey, sasToken, requestTimeout, maxAttempts);
  }

  public AzureSettings withEndpoint(String url) {
    return new AzureSettings(account, url, connectionString, accountKey, sasToken, requestTimeout, maxAttempts);
  }

  public AzureSettings withConnectionString(String cs) {
    return new AzureSettings(account, endpoint, cs, accountKey, sasToken, requestTimeout, maxAttempts);
  }

  public AzureSettings withAccountKey(String key) {
    return new AzureSettings(account, endpoint, connectionString, key, sasToken, requestTimeout, maxAttempts);
  }

  public AzureSettings withSasToken(String sas) {
    return new AzureSettings(account, endpoint, connectionString, accountKey, sas, requestTimeout, maxAttempts);
  }

  public AzureSettings withRequestTimeout(Duration timeout) {
    return new AzureSettings(account, endpoint, connectionString, accountKey, sasToken, timeout, maxAttempts);
  }

  public AzureSettings withMaxAttempts(int attempts) {
    return new AzureSettings(account, endpoint, connectionString, accountKey, sasToken, requestTimeout, attempts);
  }

  /** Whether a secret is given here (then the environment's are not looked at). */
  boolean hasSecret() {
    return present(connectionString) || present(accountKey) || present(sasToken);
  }

  static boolean present(String s) {
    return s != null && !s.isBlank();
  }

  /** The settings with every secret shown as {@code ***}: this is what logs and messages may print. */
  @Override
  public String toString() {
    return "AzureSettings[account=" + account + ", endpoint=" + endpoint + ", connectionString="
        + (present(connectionString) ? "***" : null) + ", accountKey=" + (present(accountKey) ? "***" : null)
        + ", sasToken=" + (present(sasToken) ? "***" : null) + ", requestTimeout=" + requestTimeout
        + ", maxAttempts=" + maxAttempts + "]";
  }
}
