package io.dimstream.registry;

import io.dimstream.DimstreamException;
import java.net.URI;

/** Builds every message of this package: what happened, why, and how to fix it. */
final class RegistryErrors {
  private RegistryErrors() {}

  static UnknownSchemaIdException unknownId(int id, URI url) {
    return new UnknownSchemaIdException(id, "The schema registry at " + url + " has no schema with id " + id
        + " (404). The record was written with another registry, or its schema was deleted; produce it again with"
        + " a serializer that registers its schema in this registry.");
  }

  static RegistryClosedException closed(int id) {
    return new RegistryClosedException("Stopped waiting for schema " + id + " from the schema registry: the service is"
        + " shutting down. The record was not read; it is read again at the next start.");
  }

  static String status(int status, String body) {
    String shown = body == null ? "" : body.length() > 200 ? body.substring(0, 200) + "..." : body;
    String hint = switch (status) {
      case 401, 403 -> " (check schema_registry.basic_auth: the registry refuses the credentials)";
      default -> "";
    };
    return "HTTP " + status + hint + (shown.isBlank() ? "" : ": " + shown.strip());
  }

  static String unreadable(String problem) {
    return "an answer that is no schema: " + problem + " (is schema_registry.url the base of a Confluent-compatible"
        + " API? Apicurio serves it under /apis/ccompat/v7)";
  }

  static DimstreamException badTrustStore(String path, Exception e) {
    return new DimstreamException("Cannot load the trust store " + path + " of schema_registry.trust_store: " + e
        + ". Give a readable PKCS12 or JKS file and its password (trust_store_password_env).", e);
  }

  static DimstreamException registerRefused(String subject, URI url, String problem) {
    return new DimstreamException("Cannot register the spec's Avro schema under subject " + subject + " at the schema"
        + " registry " + url + ": " + problem + ". Check schema_registry.url and basic_auth, and that the subject's"
        + " compatibility rule accepts the schema.");
  }
}
