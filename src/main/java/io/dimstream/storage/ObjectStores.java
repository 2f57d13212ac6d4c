package io.dimstream.storage;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens the store of a table location. S3 clients are built once per {@link StorageSettings} and AWS variables and
 * shared by every table of the process (they hold connection pools and credential caches).
 */
public final class ObjectStores {
  /**
   * S3 clients by settings and the AWS variables in force: the endpoint may come from a variable (or its system
   * property), and a client built for one endpoint must not answer for another.
   */
  private static final Map<S3Key, S3Clients> S3 = new ConcurrentHashMap<>();
  /** Azure clients by settings and account host ({@code abfss}; null for {@code az}, whose account is configured). */
  private static final Map<AzureKey, AzureClients> AZURE = new ConcurrentHashMap<>();

  private record AzureKey(AzureSettings settings, String accountHost, Map<String, String> env) {}

  private record S3Key(StorageSettings settings, Map<String, String> awsEnv) {}

  private ObjectStores() {}

  /**
   * The store of {@code location}: a {@link LocalStore} for a local path, an {@link S3Store} for s3://, an
   * {@link AzureStore} for az:// and abfss://.
   */
  public static ObjectStore open(TableLocation location, StorageSettings settings) {
    return switch (location.scheme()) {
      case TableLocation.LOCAL -> new LocalStore(location.localPath());
      case TableLocation.S3 -> new S3Store(S3.computeIfAbsent(new S3Key(settings, awsEnvironment()),
          k -> new S3Clients(k.settings(), k.awsEnv())), location, settings.maxAttempts());
      case TableLocation.AZ, TableLocation.ABFSS -> new AzureStore(AZURE.computeIfAbsent(
          new AzureKey(settings.azure(), location.accountHost(), azureEnvironment()),
          k -> new AzureClients(k.settings(), location, k.env())), location, settings.azure());
      default -> throw new StorageException("'" + location + "': no store for scheme '" + location.scheme()
          + "'. Fix: give " + TableLocation.SUPPORTED + ".");
    };
  }

  /**
   * The AWS environment variables, with the AWS SDK's system properties for the endpoint ({@code aws.endpointUrlS3},
   * {@code aws.endpointUrl}) in place of the variables they stand for, as the SDK ranks them.
   */
  private static Map<String, String> awsEnvironment() {
    Map<String, String> env = new java.util.HashMap<>();
    System.getenv().forEach((name, value) -> {
      if (name.startsWith("AWS_")) {
        env.put(name, value);
      }
    });
    String s3 = System.getProperty("aws.endpointUrlS3");
    String any = System.getProperty("aws.endpointUrl");
    if (s3 != null) {
      env.put("AWS_ENDPOINT_URL_S3", s3);
    }
    if (any != null) {
      env.put("AWS_ENDPOINT_URL", any);
    }
    String region = System.getProperty("aws.region");
    if (region != null) {
      env.put("aws.region", region); // read by the SDK's region chain when a client is built; here only a key part
    }
    return Map.copyOf(env);
  }

  /**
   * The Azure storage variables ({@code AZURE_STORAGE_CONNECTION_STRING}, {@code AZURE_STORAGE_ACCOUNT},
   * {@code AZURE_STORAGE_KEY}, {@code AZURE_STORAGE_SAS_TOKEN}): a JVM system property of the same name first, as the
   * Azure SDK's configuration reads them, then the environment variable.
   */
  private static Map<String, String> azureEnvironment() {
    Map<String, String> env = new java.util.HashMap<>();
    for (String name : List.of(AzureClients.CONNECTION_STRING, AzureClients.ACCOUNT, AzureClients.KEY,
        AzureClients.SAS_TOKEN)) {
      String value = System.getProperty(name, System.getenv(name));
      if (value != null) {
        env.put(name, value);
      }
    }
    return Map.copyOf(env);
  }

  /** The store of {@code location} with the settings of the environment alone. */
  public static ObjectStore open(TableLocation location) {
    return open(location, StorageSettings.defaults());
  }

  /** Parses {@code location} ({@link TableLocation#parse}) and opens its store with the environment's settings. */
  public static ObjectStore open(String location) {
    return open(TableLocation.parse(location));
  }
}
