package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A process that opens S3 tables with the same settings but with the endpoint taken from the AWS SDK's environment
 * ({@code aws.endpointUrlS3}, as `dimstream table ...` commands run in one JVM do) reaches the server the environment
 * names when the store is opened, not the one an earlier store's client was built for: S3 clients are shared per
 * settings, and the environment is part of what they were built from.
 */
class S3EndpointFromEnvironmentIT {
  @AfterEach
  void clear() {
    System.clearProperty("aws.endpointUrlS3");
    System.clearProperty("aws.region");
  }

  @Test
  void shouldReachTheServerTheEnvironmentNamesWhenTheStoreIsOpened() throws Exception {
    try (S3ProxyServer first = S3ProxyServer.inMemory(); S3ProxyServer second = S3ProxyServer.inMemory()) {
      first.store("dims", "t").put("marker", "first".getBytes(StandardCharsets.UTF_8));
      second.store("dims", "t").put("marker", "second".getBytes(StandardCharsets.UTF_8));
      // no endpoint in the settings: the SDK takes it from the environment
      StorageSettings settings = StorageSettings.defaults();
      System.setProperty("aws.region", "us-east-1");

      System.setProperty("aws.endpointUrlS3", first.endpoint());
      ObjectStore a = ObjectStores.open(TableLocation.s3("dims", "t"), settings);
      System.setProperty("aws.endpointUrlS3", second.endpoint());
      ObjectStore b = ObjectStores.open(TableLocation.s3("dims", "t"), settings);

      assertThat(new String(a.read("marker"), StandardCharsets.UTF_8)).isEqualTo("first");
      assertThat(new String(b.read("marker"), StandardCharsets.UTF_8)).isEqualTo("second");
    }
  }
}
