package io.dimstream.storage;

import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The Blob service client of one Azure storage account, built from {@link AzureSettings} and the environment the
 * way Azure's tools read it. The SDK does not retry here: {@link AzureStore} retries itself, with full jitter, and
 * decides what a conditional create whose answer was lost means. Requests go through the JDK's own HTTP client.
 */
final class AzureClients {
  static final String CONNECTION_STRING = "AZURE_STORAGE_CONNECTION_STRING";
  static final String ACCOUNT = "AZURE_STORAGE_ACCOUNT";
  static final String KEY = "AZURE_STORAGE_KEY";
  static final String SAS_TOKEN = "AZURE_STORAGE_SAS_TOKEN";

  private final BlobServiceClient service;
  private final String account;

  /**
   * @param settings the spec's {@code service.storage.azure}
   * @param location an {@code az://} or {@code abfss://} location; an {@code abfss} host names the account
   * @param env      the environment variables
   */
  AzureClients(AzureSettings settings, TableLocation location, Map<String, String> env) {
    String connectionString = settings.hasSecret() ? settings.connectionString() : env.get(CONNECTION_STRING);
    Map<String, String> cs = AzureSettings.present(connectionString) ? parse(connectionString) : Map.of();
    String host = location.accountHost();
    String uriAccount = host == null ? null : host.substring(0, host.indexOf('.'));
    String account = first(uriAccount, settings.account(), env.get(ACCOUNT), cs.get("accountname"));
    if (uriAccount != null && cs.get("accountname") != null
        && !uriAccount.equalsIgnoreCase(cs.get("accountname"))) {
      throw new StorageException("'" + location + "' is in the storage account '" + uriAccount + "', but the "
          + "connection string is for '" + cs.get("accountname") + "'. Fix: give the connection string of '"
          + uriAccount + "', or the table's URI in that account.");
    }
    String endpoint = first(settings.endpoint(), cs.get("blobendpoint"));
    if (endpoint == null && cs.isEmpty()) {
      if (account == null) {
        throw new StorageException("No Azure storage account is configured for '" + location + "'. Fix: set "
            + ACCOUNT + " (or " + CONNECTION_STRING + "), or service.storage.azure.account in the spec, or give the "
            + "table as abfss://container@account.dfs.core.windows.net/prefix.");
      }
      String suffix = host == null ? "core.windows.net" : host.substring(host.indexOf(".dfs.") + ".dfs.".length());
      endpoint = "https://" + account.toLowerCase(Locale.ROOT) + ".blob." + suffix;
    }
    this.account = account;

    HttpClient http = new JdkHttpClientBuilder()
        .connectionTimeout(Duration.ofSeconds(10))
        .responseTimeout(settings.requestTimeout())
        .readTimeout(settings.requestTimeout())
        .writeTimeout(settings.requestTimeout())
        .build();
    BlobServiceClientBuilder b = new BlobServiceClientBuilder().httpClient(http)
        // one try per call: AzureStore retries, so that it can read a lost conditional create back first
        .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, tryTimeout(settings.requestTimeout()), null,
            null, null));
    if (!cs.isEmpty()) {
      b.connectionString(connectionString);
    }
    if (endpoint != null) {
      b.endpoint(endpoint);
    }
    String key = settings.hasSecret() ? settings.accountKey() : env.get(KEY);
    String sas = settings.hasSecret() ? settings.sasToken() : env.get(SAS_TOKEN);
    if (!cs.isEmpty()) {
      // the connection string holds the key or the SAS
    } else if (AzureSettings.present(key)) {
      if (account == null) {
        throw new StorageException("An Azure account key is given but no account. Fix: set " + ACCOUNT
            + " or service.storage.azure.account.");
      }
      b.credential(new StorageSharedKeyCredential(account, key.strip()));
    } else if (AzureSettings.present(sas)) {
      b.sasToken(sas.strip().startsWith("?") ? sas.strip().substring(1) : sas.strip());
    } else {
      b.credential(new DefaultAzureCredentialBuilder().httpClient(http).build());
    }
    this.service = b.buildClient();
  }

  /** The SDK bounds a try in whole seconds; a shorter time-out is kept by the HTTP client's response time-out. */
  private static Duration tryTimeout(Duration requestTimeout) {
    long seconds = (requestTimeout.toMillis() + 999) / 1000;
    return Duration.ofSeconds(Math.max(1, seconds));
  }

  BlobServiceClient service() {
    return service;
  }

  /** The account name, when known from the settings, the environment or the URI. */
  String account() {
    return account;
  }

  private static String first(String... values) {
    for (String v : values) {
      if (AzureSettings.present(v)) {
        return v.strip();
      }
    }
    return null;
  }

  /** The {@code Name=value} pairs of a connection string, names in lower case (a value may hold '='). */
  static Map<String, String> parse(String connectionString) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String part : connectionString.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        out.put(part.substring(0, eq).strip().toLowerCase(Locale.ROOT), part.substring(eq + 1).strip());
      } else if (!part.isBlank()) {
        throw new StorageException("The Azure storage connection string is malformed (a part without '='). Fix: "
            + "copy it whole from the portal (Access keys) or from 'az storage account show-connection-string'.");
      }
    }
    if (Boolean.parseBoolean(out.getOrDefault("usedevelopmentstorage", "false"))) {
      out.putIfAbsent("accountname", "devstoreaccount1");
      out.putIfAbsent("blobendpoint", "http://127.0.0.1:10000/devstoreaccount1");
    }
    return out;
  }
}
