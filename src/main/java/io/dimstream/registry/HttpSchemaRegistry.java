package io.dimstream.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.spec.SchemaRegistrySettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A registry's Confluent-compatible REST API read with the JDK's HTTP client: {@code GET <url>/schemas/ids/<id>}.
 * A 404 is an unknown id; any other failure (no connection, a timeout, a 5xx, a refused login) is an outage that
 * the caller waits out, retried with doubling back-off up to {@link #MAX_BACKOFF}. Caches nothing: the decoder
 * caches what it compiles from a schema.
 */
public final class HttpSchemaRegistry implements SchemaRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(HttpSchemaRegistry.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** The first failure of an outage and the last one seen. */
  private record Outage(Instant since, String lastProblem) {}

  private final URI url;
  private final HttpClient http;
  private final String authorization;
  private final Clock clock;
  private final Object lock = new Object();
  private final AtomicInteger waiting = new AtomicInteger();
  private volatile Outage outage;
  private volatile boolean closed;

  public HttpSchemaRegistry(SchemaRegistrySettings settings, Clock clock) {
    this.url = settings.url();
    this.clock = clock;
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT)
        .followRedirects(HttpClient.Redirect.NORMAL);
    if (settings.trustStore() != null) {
      b.sslContext(trusting(settings));
    }
    this.http = b.build();
    this.authorization = settings.user() == null ? null : "Basic " + Base64.getEncoder().encodeToString(
        (settings.user() + ":" + settings.password()).getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public RegisteredSchema schema(int id) {
    Duration backoff = FIRST_BACKOFF;
    boolean counted = false;
    try {
      while (true) {
        if (closed) {
          throw RegistryErrors.closed(id);
        }
        String problem;
        try {
          HttpResponse<String> r = http.send(request(id), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
          if (r.statusCode() == 200) {
            RegisteredSchema s = parse(id, r.body());
            if (s != null) {
              recovered();
              return s;
            }
            problem = RegistryErrors.unreadable(r.body());
          } else if (r.statusCode() == 404) {
            recovered();
            throw RegistryErrors.unknownId(id, url);
          } else {
            problem = RegistryErrors.status(r.statusCode(), r.body());
          }
        } catch (IOException e) {
          problem = e.getMessage() == null ? e.getClass().getName() : e.toString();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw RegistryErrors.closed(id);
        }
        if (!counted) {
          waiting.incrementAndGet();
          counted = true;
        }
        failed(id, problem);
        pause(backoff, id);
        backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
      }
    } finally {
      if (counted) {
        waiting.decrementAndGet();
      }
    }
  }

  /**
   * Registers an Avro schema under {@code subject} (the registry returns the existing id when the schema is already
   * registered there), for a producer that writes the wire format. Fails at once rather than waiting: a command
   * line, not a stream, asks.
   *
   * @return the schema's id
   * @throws io.dimstream.DimstreamException when the registry cannot be reached or refuses the schema
   */
  public int register(String subject, String avroSchema) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/subjects/"
            + java.net.URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions")).timeout(REQUEST_TIMEOUT)
        .header("Content-Type", "application/vnd.schemaregistry.v1+json");
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    try {
      String body = JSON.writeValueAsString(java.util.Map.of("schema", avroSchema));
      HttpResponse<String> r = http.send(b.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode id = r.statusCode() == 200 ? JSON.readTree(r.body()).get("id") : null;
      if (id == null || !id.canConvertToInt()) {
        throw RegistryErrors.registerRefused(subject, url, RegistryErrors.status(r.statusCode(), r.body()));
      }
      return id.asInt();
    } catch (IOException e) {
      throw RegistryErrors.registerRefused(subject, url, String.valueOf(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RegistryErrors.registerRefused(subject, url, "interrupted");
    }
  }

  /**
   * Registers the Avro schema of the values of {@code topic} under the topic-name strategy's subject,
   * {@code <topic>-value}, which Confluent's and Apicurio's deserializers look up by the id in each record; as
   * {@link #register}.
   */
  public int registerValue(String topic, String avroSchema) {
    return register(topic + "-value", avroSchema);
  }

  @Override
  public Optional<String> outage() {
    Outage o = outage;
    if (o == null) {
      return Optional.empty();
    }
    return Optional.of("the schema registry at " + url + " has not answered since " + o.since() + " ("
        + o.lastProblem() + "); " + waiting.get() + " stream thread(s) wait for a writer schema and retry with"
        + " back-off; no record goes to the dead-letter topic meanwhile");
  }

  @Override
  public void close() {
    closed = true;
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  private HttpRequest request(int id) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + id)).timeout(REQUEST_TIMEOUT)
        .header("Accept", "application/vnd.schemaregistry.v1+json, application/json").GET();
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b.build();
  }

  /** The schema of a 200 answer, or null when the body is no {@code {"schema": ...}} object. */
  private static RegisteredSchema parse(int id, String body) {
    try {
      JsonNode n = JSON.readTree(body);
      JsonNode schema = n == null ? null : n.get("schema");
      if (schema == null || !schema.isTextual()) {
        return null;
      }
      JsonNode type = n.get("schemaType");
      return new RegisteredSchema(id, type == null || type.isNull() ? RegisteredSchema.AVRO : type.asText(),
          schema.asText());
    } catch (IOException e) {
      return null;
    }
  }

  private void failed(int id, String problem) {
    Outage o = outage;
    if (o == null) {
      LOG.warn("The schema registry at {} does not answer for schema {} ({}); records wait and are retried",
          url, id, problem);
      outage = new Outage(clock.instant(), problem);
    } else if (!o.lastProblem().equals(problem)) {
      outage = new Outage(o.since(), problem);
    }
  }

  private void recovered() {
    Outage o = outage;
    if (o != null) {
      outage = null;
      LOG.info("The schema registry at {} answers again (it did not since {})", url, o.since());
    }
  }

  private void pause(Duration d, int id) {
    long until = System.nanoTime() + d.toNanos();
    synchronized (lock) {
      long left;
      while (!closed && (left = until - System.nanoTime()) > 0) {
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw RegistryErrors.closed(id);
        }
      }
    }
  }

  private static SSLContext trusting(SchemaRegistrySettings s) {
    String path = s.trustStore().toString();
    try (InputStream in = Files.newInputStream(s.trustStore())) {
      char[] password = s.trustStorePassword() == null ? null : s.trustStorePassword().toCharArray();
      KeyStore store = KeyStore.getInstance(path.endsWith(".jks") ? "JKS" : "PKCS12");
      store.load(in, password);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw RegistryErrors.badTrustStore(path, e);
    }
  }
}
