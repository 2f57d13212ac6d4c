package io.dimstream.storage;

import java.time.Duration;
import java.util.Map;

/**
 * How to reach the object store of a table; everything optional, since the SDK's own configuration comes first:
 * credentials always from the AWS default chain (environment, {@code ~/.aws} profiles, container and instance
 * roles, web identity), never from here, so no secret is kept in a spec file or printed.
 *
 * @param region         the S3 region; null: {@code AWS_REGION} / the profile, else us-east-1 with a custom endpoint
 * @param endpoint       an S3-compatible endpoint (MinIO, Ceph, R2, ...); null: {@code AWS_ENDPOINT_URL_S3}, else
 *                       {@code AWS_ENDPOINT_URL}, else AWS
 * @param pathStyle      path-style addressing ({@code endpoint/bucket/key}); null: on whenever a custom endpoint is
 *                       set (what S3-compatible stores expect), off for AWS
 * @param requestTimeout the longest one attempt of a request may take before it is retried
 * @param maxAttempts    attempts of a request on throttling (503 SlowDown, 429) and transient errors, with
 *                       exponential backoff and jitter
 * @param azure          how to reach Azure Blob Storage ({@code az://}, {@code abfss://} tables)
 */
public record StorageSettings(String region, String endpoint, Boolean pathStyle, Duration requestTimeout,
    int maxAttempts, AzureSettings azure) {
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_ATTEMPTS = 8;

  public StorageSettings {
    if (requestTimeout == null) {
      requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    }
    if (maxAttempts < 1) {
      maxAttempts = DEFAULT_MAX_ATTEMPTS;
    }
    if (azure == null) {
      azure = AzureSettings.defaults();
    }
  }

  /** S3 settings, Azure's from the environment. */
  public StorageSettings(String region, String endpoint, Boolean pathStyle, Duration requestTimeout, int maxAttempts) {
    this(region, endpoint, pathStyle, requestTimeout, maxAttempts, AzureSettings.defaults());
  }

  /** The settings, credentials in the endpoint URL (user info) and Azure's secrets hidden: settings end up in logs. */
  @Override
  public String toString() {
    return "StorageSettings[region=" + region + ", endpoint=" + shown(endpoint) + ", pathStyle=" + pathStyle
        + ", requestTimeout=" + requestTimeout + ", maxAttempts=" + maxAttempts + ", azure=" + azure + "]";
  }

  /** {@code url} with the user info of an endpoint like {@code https://user:secret@host} replaced by {@code ***}. */
  private static String shown(String url) {
    if (url == null) {
      return null;
    }
    int scheme = url.indexOf("://");
    int at = url.indexOf('@', scheme < 0 ? 0 : scheme + 3);
    int slash = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    if (at < 0 || (slash >= 0 && at > slash)) {
      return url;
    }
    return (scheme < 0 ? "" : url.substring(0, scheme + 3)) + "***" + url.substring(at);
  }

  /** Nothing set: the environment and the SDK's defaults decide. */
  public static StorageSettings defaults() {
    return new StorageSettings(null, null, null, DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_ATTEMPTS);
  }

  public StorageSettings withAzure(AzureSettings a) {
    return new StorageSettings(region, endpoint, pathStyle, requestTimeout, maxAttempts, a);
  }

  public StorageSettings withEndpoint(String url) {
    return new StorageSettings(region, url, pathStyle, requestTimeout, maxAttempts, azure);
  }

  public StorageSettings withRegion(String r) {
    return new StorageSettings(r, endpoint, pathStyle, requestTimeout, maxAttempts, azure);
  }

  public StorageSettings withRequestTimeout(Duration timeout) {
    return new StorageSettings(region, endpoint, pathStyle, timeout, maxAttempts, azure);
  }

  public StorageSettings withMaxAttempts(int attempts) {
    return new StorageSettings(region, endpoint, pathStyle, requestTimeout, attempts, azure);
  }

  /** The endpoint in force: the setting, else {@code AWS_ENDPOINT_URL_S3}, else {@code AWS_ENDPOINT_URL}; or null. */
  public String effectiveEndpoint(Map<String, String> env) {
    if (endpoint != null && !endpoint.isBlank()) {
      return endpoint;
    }
    String s3 = env.get("AWS_ENDPOINT_URL_S3");
    if (s3 != null && !s3.isBlank()) {
      return s3;
    }
    String any = env.get("AWS_ENDPOINT_URL");
    return any == null || any.isBlank() ? null : any;
  }

  /** Path-style addressing in force for {@code effectiveEndpoint}. */
  public boolean effectivePathStyle(String effectiveEndpoint) {
    return pathStyle != null ? pathStyle : effectiveEndpoint != null;
  }
}
