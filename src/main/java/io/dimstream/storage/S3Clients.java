package io.dimstream.storage;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The two S3 clients of one {@link StorageSettings}: one whose requests the SDK retries (reads, listings,
 * overwrites, deletes: all idempotent), and one that never retries, for conditional creates, whose retries
 * {@link S3Store} decides itself. Credentials come from the SDK's default chain only.
 */
final class S3Clients implements AutoCloseable {
  private final S3Client client;
  private final S3Client conditional;
  private final String endpoint;

  S3Clients(StorageSettings settings, Map<String, String> env) {
    this.endpoint = settings.effectiveEndpoint(env);
    SdkHttpClient http = UrlConnectionHttpClient.builder()
        .connectionTimeout(Duration.ofSeconds(10))
        .socketTimeout(settings.requestTimeout())
        .build();
    this.client = builder(settings, http)
        .overrideConfiguration(o -> o.apiCallAttemptTimeout(settings.requestTimeout())
            .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(settings.maxAttempts()).build()))
        .build();
    this.conditional = builder(settings, http)
        .overrideConfiguration(o -> o.apiCallAttemptTimeout(settings.requestTimeout())
            .retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  private S3ClientBuilder builder(StorageSettings settings, SdkHttpClient http) {
    S3ClientBuilder b = S3Client.builder().httpClient(http).region(region(settings));
    if (endpoint != null) {
      b.endpointOverride(URI.create(endpoint))
          // S3-compatible stores differ in the checksums they know: send and check them only where S3 requires
          .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    b.forcePathStyle(settings.effectivePathStyle(endpoint));
    return b;
  }

  private Region region(StorageSettings settings) {
    if (settings.region() != null && !settings.region().isBlank()) {
      return Region.of(settings.region());
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkClientException e) {
      if (endpoint != null) {
        return Region.US_EAST_1; // S3-compatible stores accept any region; MinIO's default is this one
      }
      throw new StorageException("No AWS region is configured for the S3 table. Fix: set AWS_REGION (or a region "
          + "in ~/.aws/config), or service.storage.s3.region in the spec.", e);
    }
  }

  S3Client client() {
    return client;
  }

  S3Client conditional() {
    return conditional;
  }

  @Override
  public void close() {
    client.close();
    conditional.close();
  }
}
