package io.dimstream.spec;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the writer schemas of records in the Confluent wire format live ({@code schema_registry} of a spec): a
 * registry with a Confluent-compatible API (Confluent Schema Registry, Apicurio's {@code /apis/ccompat/v7}, Karapace,
 * Redpanda). Secrets are never shown: {@link #toString()} redacts them.
 *
 * @param url                the API's base URL, without a trailing slash; {@code /schemas/ids/{id}} is appended
 * @param user               the basic-auth user; null for no authentication
 * @param password           the basic-auth password; null exactly when {@code user} is
 * @param trustStore         a PKCS12 or JKS trust store for an {@code https} URL; null: the JVM's default trust
 * @param trustStorePassword the trust store's password; may be null
 * @param cacheSize          how many writer schemas are kept, by id (least recently used ones are dropped first)
 */
public record SchemaRegistrySettings(URI url, String user, String password, Path trustStore,
    String trustStorePassword, int cacheSize) {
  /** Writer schemas kept when {@code cache_size} is not given. */
  public static final int DEFAULT_CACHE_SIZE = 1000;

  public SchemaRegistrySettings {
    Objects.requireNonNull(url, "url");
    if ((user == null) != (password == null)) {
      throw new IllegalArgumentException("basic auth needs both a user and a password");
    }
    if (cacheSize < 1) {
      throw new IllegalArgumentException("the cache size must be positive, got " + cacheSize);
    }
  }

  /** A registry at {@code url} without authentication, default trust and cache. */
  public static SchemaRegistrySettings of(String url) {
    return new SchemaRegistrySettings(URI.create(url.replaceAll("/+$", "")), null, null, null, null,
        DEFAULT_CACHE_SIZE);
  }

  @Override
  public String toString() {
    return "SchemaRegistrySettings[url=" + url + ", user=" + user + ", password="
        + (password == null ? null : Secrets.REDACTED) + ", trustStore=" + trustStore + ", trustStorePassword="
        + (trustStorePassword == null ? null : Secrets.REDACTED) + ", cacheSize=" + cacheSize + "]";
  }
}
