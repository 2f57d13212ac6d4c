package io.dimstream.spec;

import static io.dimstream.spec.SpecNodes.checkKnown;
import static io.dimstream.spec.SpecNodes.durationMicros;
import static io.dimstream.spec.SpecNodes.positiveInt;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.storage.StorageException;
import io.dimstream.storage.StorageSettings;
import io.dimstream.storage.TableLocation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The spec's {@code service} section: where the service keeps state and table, Kafka, compaction, HTTP, storage. */
final class ServiceSection {
  private static final Pattern SIZE = Pattern.compile("(\\d{1,6})\\s*(MiB|GiB)");

  private ServiceSection() {}

  static ServiceSettings read(JsonNode node, String name, Path file) {
    ServiceSettings s = ServiceSettings.defaults(name);
    if (node == null || node.isNull()) {
      return s;
    }
    Set<String> known = Set.of("data_dir", "table_path", "kafka", "compaction", "http", "partitions",
        "max_record_bytes", "storage", "kafka_wait", "state_memory");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw SpecErrors.invalid(file, "service." + f, "unknown field", "use one of " + new TreeSet<>(known));
      }
    }
    Path dataDir = node.has("data_dir") ? Path.of(node.get("data_dir").asText()) : s.dataDir();
    TableLocation table = TableLocation.local(dataDir.resolve("tables").resolve(name));
    if (node.has("table_path")) {
      try {
        table = TableLocation.parse(node.get("table_path").asText());
      } catch (StorageException e) {
        throw SpecErrors.invalid(file, "service.table_path", e.getMessage(), "give " + TableLocation.SUPPORTED);
      }
    }
    StorageSettings storage = node.has("storage") ? storage(node.get("storage"), file) : StorageSettings.defaults();
    Map<String, String> kafka = new LinkedHashMap<>();
    if (node.has("kafka")) {
      node.get("kafka").fields().forEachRemaining(e -> kafka.put(e.getKey(), e.getValue().asText()));
    }
    Duration interval = s.compactionInterval();
    int maxRecords = s.compactionMaxRecords();
    JsonNode c = node.get("compaction");
    if (c != null) {
      checkKnown(c, "service.compaction", Set.of("interval", "max_records"), file);
      if (c.has("interval")) {
        long micros = durationMicros(c.get("interval").asText(), file, "service.compaction.interval");
        interval = Duration.ofNanos(micros * 1000);
      }
      if (c.has("max_records")) {
        maxRecords = positiveInt(c.get("max_records"), file, "service.compaction.max_records");
      }
    }
    if (node.has("http")) {
      checkKnown(node.get("http"), "service.http", Set.of("host", "port", "tls", "auth"), file);
    }
    String host = node.path("http").path("host").asText(s.httpHost());
    int port = node.path("http").has("port") ? node.path("http").get("port").asInt() : s.httpPort();
    if (port < 0 || port > 65535) {
      throw SpecErrors.invalid(file, "service.http.port", "port " + port + " is out of range", "use 0..65535 (0 = a free port)");
    }
    HttpSecurity security = HttpSecuritySection.read(node.path("http"), file, System::getenv);
    security.exposureProblem(host).ifPresent(problem -> {
      throw SpecErrors.invalid(file, "service.http.host", problem, HttpSecurity.EXPOSURE_FIX);
    });
    int partitions = node.has("partitions") ? positiveInt(node.get("partitions"), file, "service.partitions") : 1;
    int maxRecordBytes = ServiceSettings.MAX_RECORD_BYTES_FROM_TOPIC;
    if (node.has("max_record_bytes")) {
      maxRecordBytes = positiveInt(node.get("max_record_bytes"), file, "service.max_record_bytes");
      if (maxRecordBytes > SizePolicy.MAX_RECORD_BYTES_CEILING) {
        throw SpecErrors.invalid(file, "service.max_record_bytes", maxRecordBytes + " bytes is above the ceiling of "
            + SizePolicy.MAX_RECORD_BYTES_CEILING + " (records the service writes hold up to three times a change "
            + "record and must stay within Kafka's 2 GiB request limit)", "give at most "
            + SizePolicy.MAX_RECORD_BYTES_CEILING + ", or leave it out to take the changes topic's max.message.bytes");
      }
    }
    long stateMemory = node.has("state_memory") ? stateMemory(node.get("state_memory").asText(), file)
        : ServiceSettings.DEFAULT_STATE_MEMORY;
    return new ServiceSettings(dataDir, table, Map.copyOf(kafka), interval, maxRecords, host, port, partitions,
        maxRecordBytes, storage, security, kafkaWait(node.get("kafka_wait"), file), stateMemory);
  }

  /** {@code service.state_memory}: a size such as {@code 512MiB} or {@code 2GiB}, at least 16 MiB. */
  private static long stateMemory(String text, Path file) {
    Matcher m = SIZE.matcher(text.trim());
    String fix = "write a size in MiB or GiB, at least 16MiB, e.g. state_memory: 512MiB";
    if (!m.matches()) {
      throw SpecErrors.invalid(file, "service.state_memory", "'" + text + "' is not a size", fix);
    }
    long bytes = Long.parseLong(m.group(1)) << (m.group(2).equals("GiB") ? 30 : 20);
    if (bytes < (16L << 20)) {
      throw SpecErrors.invalid(file, "service.state_memory", text + " is below 16 MiB", fix);
    }
    return bytes;
  }

  /** {@code service.kafka_wait}: a duration, or {@code forever} (the default). */
  private static Duration kafkaWait(JsonNode node, Path file) {
    if (node == null || node.isNull() || node.asText().equals("forever")) {
      return ServiceSettings.KAFKA_WAIT_FOREVER;
    }
    long micros = durationMicros(node.asText(), file, "service.kafka_wait");
    return Duration.ofNanos(micros * 1000);
  }

  /**
   * {@code service.storage}: {@code s3} ({@link #s3Storage}) and {@code azure} ({@link AzureStorageSection}).
   */
  private static StorageSettings storage(JsonNode node, Path file) {
    checkKnown(node, "service.storage", Set.of("s3", "azure"), file);
    return s3Storage(node, file).withAzure(AzureStorageSection.read(node.get("azure"), file));
  }

  /**
   * {@code service.storage.s3}: {@code region, endpoint, path_style, request_timeout, max_attempts}. No credentials:
   * they come from the SDK's default chain (environment, profiles, instance or workload identity).
   */
  private static StorageSettings s3Storage(JsonNode node, Path file) {
    StorageSettings s = StorageSettings.defaults();
    JsonNode s3 = node.get("s3");
    if (s3 == null || s3.isNull()) {
      return s;
    }
    checkKnown(s3, "service.storage.s3", Set.of("region", "endpoint", "path_style", "request_timeout",
        "max_attempts"), file);
    Boolean pathStyle = null;
    if (s3.has("path_style")) {
      if (!s3.get("path_style").isBoolean()) {
        throw SpecErrors.invalid(file, "service.storage.s3.path_style", "expected true or false, got "
            + s3.get("path_style"), "write path_style: true (endpoint/bucket/key) or false (bucket.endpoint/key)");
      }
      pathStyle = s3.get("path_style").asBoolean();
    }
    String endpoint = s3.has("endpoint") ? s3.get("endpoint").asText() : null;
    if (endpoint != null) {
      try {
        java.net.URI u = new java.net.URI(endpoint);
        if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
            || u.getHost() == null) {
          throw new java.net.URISyntaxException(endpoint, "not an http(s) URL with a host");
        }
      } catch (java.net.URISyntaxException e) {
        throw SpecErrors.invalid(file, "service.storage.s3.endpoint", "'" + endpoint + "' is not an http(s) URL",
            "write e.g. endpoint: http://minio:9000");
      }
    }
    java.time.Duration timeout = s3.has("request_timeout")
        ? java.time.Duration.ofNanos(durationMicros(s3.get("request_timeout").asText(), file,
            "service.storage.s3.request_timeout") * 1000)
        : StorageSettings.DEFAULT_REQUEST_TIMEOUT;
    int attempts = s3.has("max_attempts") ? positiveInt(s3.get("max_attempts"), file, "service.storage.s3.max_attempts")
        : StorageSettings.DEFAULT_MAX_ATTEMPTS;
    return new StorageSettings(s3.has("region") ? s3.get("region").asText() : null, endpoint, pathStyle, timeout,
        attempts);
  }
}
