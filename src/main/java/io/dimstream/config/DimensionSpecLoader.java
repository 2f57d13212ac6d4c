package io.dimstream.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import io.dimstream.storage.AzureSettings;
import io.dimstream.storage.StorageException;
import io.dimstream.storage.StorageSettings;
import io.dimstream.storage.TableLocation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;

/** Reads a dimension spec from YAML (the format docs/reference/spec.md documents) and validates it. */
public final class DimensionSpecLoader {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> TOP_LEVEL = Set.of("name", "columns", "schema", "key", "sequence", "track",
      "track_except", "delete", "format", "versions_format", "topics", "lateness_horizon", "output", "service",
      "missing_fields", "unavailable_value", "unknown_fields", "history", "soft_delete",
      "debezium", "derive", "skip_when", "source");

  private DimensionSpecLoader() {}

  public static DimensionSpec load(Path file) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(file));
    } catch (IOException e) {
      throw SpecErrors.unreadable(file, e);
    }
    if (root == null || !root.isObject()) {
      throw SpecErrors.invalid(file, "(top level)", "the file is not a YAML mapping",
          "write 'name:', 'columns:', 'key:' and 'sequence:' at the top level (see docs/reference/spec.md)");
    }
    return parse(root, file);
  }

  /** Parses an already-read YAML/JSON tree; {@code file} is only used in messages and to resolve relative paths. */
  public static DimensionSpec parse(JsonNode root, Path file) {
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!TOP_LEVEL.contains(f)) {
        throw SpecErrors.invalid(file, f, "unknown field", "remove it or use one of " + new java.util.TreeSet<>(TOP_LEVEL));
      }
    }
    String name = text(root, "name", file);
    if (PostgresSource.declaredIn(root)) {
      PostgresSource.parse(root.get("source"), name, file); // checked here; io.dimstream.source runs it
    }
    DimensionSpecBuilder b = DimensionSpec.builder(name).source(file);
    Path baseDir = file == null || file.toAbsolutePath().getParent() == null ? Path.of(".")
        : file.toAbsolutePath().getParent();
    Map<String, ColumnType> declaredTypes = new LinkedHashMap<>();
    if (root.has("columns") && root.has("schema")) {
      throw SpecErrors.invalid(file, "columns", "both 'columns' and 'schema' are given", "keep only one of them");
    }
    if (root.has("columns")) {
      JsonNode cols = root.get("columns");
      if (!cols.isObject() || cols.isEmpty()) {
        throw SpecErrors.invalid(file, "columns", "expected a mapping of column name to type", "write e.g. 'customer_id: long'");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = cols.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        try {
          b.column(e.getKey(), ColumnType.parse(e.getValue().asText()));
          declaredTypes.put(e.getKey(), ColumnType.parse(e.getValue().asText()));
        } catch (IllegalArgumentException ex) {
          throw SpecErrors.invalid(file, "columns." + e.getKey(), ex.getMessage(), "fix the type of '" + e.getKey() + "'");
        }
      }
    } else if (root.has("schema")) {
      String schemaRef = root.get("schema").asText();
      Path schemaFile = resolveSchema(baseDir, schemaRef);
      String schemaJson;
      try {
        schemaJson = Files.readString(schemaFile);
      } catch (IOException e) {
        throw SpecErrors.invalid(file, "schema", "cannot read " + schemaFile + ": " + e.getMessage(),
            "give the path of an Avro record schema (.avsc), relative to the spec file or the working directory");
      }
      for (Column c : AvroColumns.columns(schemaJson, file)) {
        b.column(c.name(), c.type());
        declaredTypes.put(c.name(), c.type());
      }
      b.avroSchema(schemaJson);
    }
    b.key(list(root, "key", file));
    InputFormat format = inputFormat(root, file);
    List<String> sequence = list(root, "sequence", file);
    if (format == InputFormat.DEBEZIUM_JSON) {
      sequence = debeziumSequence(root, sequence, declaredTypes, b, file);
    } else if (root.has("debezium")) {
      throw SpecErrors.invalid(file, "debezium", "the option applies to Debezium envelopes, but the format is "
          + format.specName(), "set 'format: debezium-json', or remove 'debezium'");
    }
    b.sequence(sequence);
    if (root.has("track")) {
      b.track(list(root, "track", file));
    }
    if (root.has("track_except")) {
      b.trackExcept(list(root, "track_except", file));
    }
    b.inputFormat(format);
    if (root.has("versions_format")) {
      String f = root.get("versions_format").asText().toLowerCase(Locale.ROOT);
      b.outputFormat(switch (f) {
        case "json" -> OutputFormat.JSON;
        case "avro" -> OutputFormat.AVRO;
        default -> throw SpecErrors.invalid(file, "versions_format", "unknown format '" + f + "'", "use json or avro");
      });
    }
    b.delete(format == InputFormat.DEBEZIUM_JSON && !root.has("delete") ? new DeleteRule.DebeziumOp()
        : deleteRule(root.get("delete"), file));
    if (root.has("topics")) {
      JsonNode t = root.get("topics");
      checkKnown(t, "topics", Set.of("changes", "versions", "dlq", "changes_keyed_by_business_key"), file);
      Topics d = Topics.defaults(name);
      b.topics(new Topics(opt(t, "changes", d.changes()), opt(t, "versions", d.versions()), opt(t, "dlq", d.dlq()),
          changesKeyed(t, file)));
    }
    if (root.has("lateness_horizon")) {
      b.latenessHorizon(horizon(root.get("lateness_horizon"), sequence.isEmpty() ? "" : sequence.get(0), declaredTypes,
          file));
    }
    if (root.has("output")) {
      JsonNode o = root.get("output");
      checkKnown(o, "output", Set.of("valid_from", "valid_to", "is_current", "version_id", "table_properties"), file);
      OutputColumns d = OutputColumns.DEFAULT;
      b.output(new OutputColumns(opt(o, "valid_from", d.validFrom()), opt(o, "valid_to", d.validTo()),
          opt(o, "is_current", d.isCurrent()), opt(o, "version_id", null)));
      if (o.has("table_properties")) {
        b.tableProperties(tableProperties(o.get("table_properties"), file));
      }
    }
    b.history(history(root, file));
    b.service(service(root.get("service"), name, file));
    b.fields(fieldRules(root, file));
    b.expressions(expressions(root, file));
    return b.build();
  }

  private static FieldRules fieldRules(JsonNode root, Path file) {
    FieldRules d = FieldRules.DEFAULT;
    FieldRules.MissingFields missing = d.missing();
    if (root.has("missing_fields")) {
      String m = root.get("missing_fields").asText().toLowerCase(Locale.ROOT);
      missing = switch (m) {
        case "null" -> FieldRules.MissingFields.NULL;
        case "keep" -> FieldRules.MissingFields.KEEP;
        default -> throw SpecErrors.invalid(file, "missing_fields", "unknown value '" + m + "'",
            "use null (an absent attribute becomes null) or keep (it keeps its previous value)");
      };
    }
    String unavailable = d.unavailableValue();
    if (root.has("unavailable_value")) {
      JsonNode u = root.get("unavailable_value");
      if (!u.isNull() && !u.isTextual()) {
        throw SpecErrors.invalid(file, "unavailable_value", "expected a text value, got " + u,
            "give the placeholder your connector writes for unchanged values (Debezium: unavailable.value.placeholder),"
                + " or null for none");
      }
      unavailable = u.isNull() ? null : u.asText();
    }
    FieldRules.UnknownFields unknown = d.unknown();
    if (root.has("unknown_fields")) {
      String u = root.get("unknown_fields").asText().toLowerCase(Locale.ROOT);
      unknown = switch (u) {
        case "warn" -> FieldRules.UnknownFields.WARN;
        case "reject" -> FieldRules.UnknownFields.REJECT;
        case "ignore" -> FieldRules.UnknownFields.IGNORE;
        default -> throw SpecErrors.invalid(file, "unknown_fields", "unknown value '" + u + "'",
            "use warn (count and log undeclared fields), reject (dead-letter the event) or ignore");
      };
    }
    return new FieldRules(missing, unavailable, unknown);
  }

  private static InputFormat inputFormat(JsonNode root, Path file) {
    if (!root.has("format")) {
      return InputFormat.JSON;
    }
    String f = root.get("format").asText().toLowerCase(Locale.ROOT);
    return switch (f) {
      case "json" -> InputFormat.JSON;
      case "avro" -> InputFormat.AVRO;
      case "debezium-json", "debezium" -> InputFormat.DEBEZIUM_JSON;
      default -> throw SpecErrors.invalid(file, "format", "unknown input format '" + f + "'", "use json, avro or debezium-json");
    };
  }

  /**
   * The sequence of a Debezium dimension: as given, or the commit order of {@code debezium.connector}. Every
   * {@code source.*} name becomes a column of its implied type; a spec the decoder could not satisfy fails here.
   */
  private static List<String> debeziumSequence(JsonNode root, List<String> given, Map<String, ColumnType> declaredTypes,
      DimensionSpecBuilder b, Path file) {
    List<String> sequence = DebeziumOrder.expand(given);
    JsonNode options = root.get("debezium");
    if (options != null) {
      if (!options.isObject() || !options.has("connector")) {
        throw SpecErrors.invalid(file, "debezium", "expected a mapping with 'connector'",
            "write e.g. debezium: {connector: postgresql}; connectors: " + DebeziumOrder.connectors());
      }
      checkKnown(options, "debezium", Set.of("connector"), file);
      String connector = options.get("connector").asText().toLowerCase(Locale.ROOT);
      List<String> order = DebeziumOrder.commitOrder(connector);
      if (order == null) {
        throw SpecErrors.invalid(file, "debezium.connector", "no default commit order is known for connector '"
            + connector + "'", "use one of " + DebeziumOrder.connectors() + ", or remove 'debezium' and list the"
            + " source fields that order commits under 'sequence' (e.g. sequence: [source.lsn])");
      }
      if (sequence.isEmpty()) {
        sequence = order;
      }
    }
    if (sequence.isEmpty()) {
      throw SpecErrors.invalid(file, "sequence", "no sequence is given",
          "set debezium: {connector: <one of " + DebeziumOrder.connectors() + ">} to order events as the database"
          + " commits them, or list the sequence, e.g. sequence: [source.lsn]");
    }
    for (String name : sequence) {
      if (!DebeziumOrder.isSourceField(name)) {
        continue;
      }
      ColumnType implied = DebeziumOrder.typeOf(name);
      ColumnType declared = declaredTypes.get(name);
      if (declared == null) {
        b.column(name, implied);
        declaredTypes.put(name, implied);
      } else if (!declared.equals(implied)) {
        throw SpecErrors.invalid(file, "columns." + name, "the envelope field '" + name + "' is read as a "
            + implied + ", but the column is declared as " + declared, "remove it from 'columns' (source fields"
            + " need no declaration) or declare it as " + implied);
      }
    }
    for (String name : declaredTypes.keySet()) {
      if (DebeziumOrder.isSourceField(name) && !sequence.contains(name)) {
        throw SpecErrors.invalid(file, "columns." + name, "'" + name + "' names a field of the envelope's 'source'"
            + " block, which is read only for the sequence; as a column it would be null in every event",
            "list it under 'sequence', or remove it from 'columns'");
      }
    }
    return sequence;
  }

  private static Path resolveSchema(Path baseDir, String ref) {
    Path p = Path.of(ref);
    if (p.isAbsolute() || Files.exists(p)) {
      return p;
    }
    return baseDir.resolve(ref);
  }

  /** {@code history: scd2|scd1} and {@code soft_delete: true|false} (scd1 only). */
  private static HistoryMode history(JsonNode root, Path file) {
    HistoryMode.Kind kind = HistoryMode.Kind.SCD2;
    if (root.has("history")) {
      String h = root.get("history").asText().toLowerCase(Locale.ROOT);
      kind = switch (h) {
        case "scd2" -> HistoryMode.Kind.SCD2;
        case "scd1" -> HistoryMode.Kind.SCD1;
        default -> throw SpecErrors.invalid(file, "history", "unknown history '" + h + "'",
            "use scd2 (full history, the default) or scd1 (one row per key, its latest state)");
      };
    }
    boolean soft = false;
    if (root.has("soft_delete")) {
      JsonNode n = root.get("soft_delete");
      if (!n.isBoolean()) {
        throw SpecErrors.invalid(file, "soft_delete", "expected true or false, got '" + n.asText() + "'",
            "write soft_delete: true to keep deleted rows with is_current = false");
      }
      soft = n.booleanValue();
      if (soft && kind != HistoryMode.Kind.SCD1) {
        throw SpecErrors.invalid(file, "soft_delete", "soft_delete applies to 'history: scd1' tables only",
            "add 'history: scd1', or remove soft_delete (an scd2 table always keeps deleted versions, closed)");
      }
    }
    return new HistoryMode(kind, soft);
  }

  private static boolean changesKeyed(JsonNode topics, Path file) {
    JsonNode n = topics.get("changes_keyed_by_business_key");
    if (n == null) {
      return false;
    }
    if (!n.isBoolean()) {
      throw SpecErrors.invalid(file, "topics.changes_keyed_by_business_key", "expected true or false, got '"
          + n.asText() + "'", "write true only when every producer keys each change record by its canonical business "
          + "key and partitions by Kafka's default (murmur2) partitioner, as `dimstream produce` does (docs/concepts.md, keyed changes topics)");
    }
    return n.booleanValue();
  }

  private static DeleteRule deleteRule(JsonNode node, Path file) {
    if (node == null || node.isNull()) {
      return new DeleteRule.None();
    }
    if (node.isTextual()) {
      return switch (node.asText().toLowerCase(Locale.ROOT)) {
        case "debezium" -> new DeleteRule.DebeziumOp();
        case "tombstone" -> new DeleteRule.Tombstone();
        case "none" -> new DeleteRule.None();
        default -> throw SpecErrors.invalid(file, "delete", "unknown delete rule '" + node.asText() + "'",
            "use {column: op, equals: d}, {column: is_deleted}, debezium or tombstone");
      };
    }
    if (node.isObject() && node.has("when")) {
      checkKnown(node, "delete", Set.of("when"), file);
      return new DeleteRule.When(expressionText(node.get("when"), "delete.when", file));
    }
    if (node.isObject() && node.has("column")) {
      checkKnown(node, "delete", Set.of("column", "equals"), file);
      String column = node.get("column").asText();
      return node.has("equals") ? new DeleteRule.ColumnEquals(column, node.get("equals").asText())
          : new DeleteRule.BooleanColumn(column);
    }
    throw SpecErrors.invalid(file, "delete", "cannot read the delete rule " + node,
        "use {column: op, equals: d}, {column: is_deleted}, debezium or tombstone");
  }

  /** The texts of {@code derive} and {@code skip_when}; {@code io.dimstream.expr} compiles and type-checks them. */
  private static Expressions expressions(JsonNode root, Path file) {
    Map<String, String> derive = new LinkedHashMap<>();
    JsonNode d = root.get("derive");
    if (d != null && !d.isNull()) {
      if (!d.isObject()) {
        throw SpecErrors.invalid(file, "derive", "expected a mapping of attribute name to expression",
            "write e.g. derive: {amount_x2: \"event.amount * 2.0\"}");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        derive.put(e.getKey(), expressionText(e.getValue(), "derive." + e.getKey(), file));
      }
    }
    JsonNode skip = root.get("skip_when");
    String skipWhen = skip == null || skip.isNull() ? null : expressionText(skip, "skip_when", file);
    return new Expressions(derive, skipWhen);
  }

  private static String expressionText(JsonNode node, String field, Path file) {
    if (node == null || !node.isTextual() || node.asText().isBlank()) {
      throw SpecErrors.invalid(file, field, "expected an expression as a string", "quote the expression, e.g. \"event.status == 'deleted'\"");
    }
    return node.asText();
  }

  /** Timestamps count in microseconds and dates in days; a bare number is taken in the sequence's own units. */
  private static long horizon(JsonNode node, String firstSeq, Map<String, ColumnType> declaredTypes, Path file) {
    if (node.isIntegralNumber()) {
      return node.asLong();
    }
    String text = node.asText().trim();
    Duration d = Durations.parse(text).orElseThrow(() -> SpecErrors.invalid(file, "lateness_horizon",
        "cannot read '" + text + "' as a duration", "write e.g. 30d, 12h, 90m, PT36H, or a plain number in the "
        + "sequence's units"));
    // from the parsed columns, so a spec described by an Avro schema gets its sequence's real units
    ColumnType firstType = declaredTypes.get(firstSeq);
    String seqType = firstType == null ? "timestamp" : firstType.toString();
    if (seqType.equals("date")) {
      return Math.max(1, d.toDays());
    }
    if (seqType.equals("long") || seqType.equals("int")) {
      throw SpecErrors.invalid(file, "lateness_horizon", "the sequence '" + firstSeq + "' is a number, not a time",
          "give the horizon as a plain number in the sequence's units");
    }
    return d.toNanos() / 1000;
  }

  private static ServiceSettings service(JsonNode node, String name, Path file) {
    ServiceSettings s = ServiceSettings.defaults(name);
    if (node == null || node.isNull()) {
      return s;
    }
    Set<String> known = Set.of("data_dir", "table_path", "kafka", "compaction", "http", "partitions",
        "max_record_bytes", "storage");
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw SpecErrors.invalid(file, "service." + f, "unknown field", "use one of " + new java.util.TreeSet<>(known));
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
    return new ServiceSettings(dataDir, table, Map.copyOf(kafka), interval, maxRecords, host, port, partitions,
        maxRecordBytes, storage, security);
  }

  /**
   * {@code service.storage}: {@code s3: {region, endpoint, path_style, request_timeout, max_attempts}} and
   * {@code azure} ({@link #azureStorage}). No S3 credentials: they come from the SDK's default chain (environment,
   * profiles, instance or workload identity).
   */
  private static StorageSettings storage(JsonNode node, Path file) {
    checkKnown(node, "service.storage", Set.of("s3", "azure"), file);
    AzureSettings azure = node.hasNonNull("azure") ? azureStorage(node.get("azure"), file) : AzureSettings.defaults();
    return s3Storage(node.get("s3"), file).withAzure(azure);
  }

  /**
   * {@code service.storage.azure}: {@code account}, {@code endpoint}, {@code request_timeout}, {@code max_attempts},
   * and the secrets {@code connection_string}, {@code account_key}, {@code sas_token}, each inline or as
   * {@code <name>_env: VARIABLE}. With none of them the environment decides ({@code AZURE_STORAGE_CONNECTION_STRING},
   * ...).
   */
  private static AzureSettings azureStorage(JsonNode az, Path file) {
    String section = "service.storage.azure";
    checkKnown(az, section, Set.of("account", "endpoint", "connection_string", "connection_string_env", "account_key",
        "account_key_env", "sas_token", "sas_token_env", "request_timeout", "max_attempts"), file);
    String endpoint = az.has("endpoint") ? httpUrl(az.get("endpoint").asText(), file, section + ".endpoint",
        "write e.g. endpoint: https://myaccount.blob.core.windows.net") : null;
    java.time.Duration timeout = az.has("request_timeout")
        ? java.time.Duration.ofNanos(durationMicros(az.get("request_timeout").asText(), file,
            section + ".request_timeout") * 1000)
        : StorageSettings.DEFAULT_REQUEST_TIMEOUT;
    int attempts = az.has("max_attempts") ? positiveInt(az.get("max_attempts"), file, section + ".max_attempts")
        : StorageSettings.DEFAULT_MAX_ATTEMPTS;
    java.util.function.UnaryOperator<String> env = System::getenv;
    return new AzureSettings(az.has("account") ? az.get("account").asText() : null, endpoint,
        HttpSecuritySection.secret(az, "connection_string", section, file, env),
        HttpSecuritySection.secret(az, "account_key", section, file, env),
        HttpSecuritySection.secret(az, "sas_token", section, file, env), timeout, attempts);
  }

  private static String httpUrl(String url, Path file, String field, String fix) {
    try {
      java.net.URI u = new java.net.URI(url);
      if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
          || u.getHost() == null) {
        throw new java.net.URISyntaxException(url, "not an http(s) URL with a host");
      }
    } catch (java.net.URISyntaxException e) {
      throw SpecErrors.invalid(file, field, "'" + url + "' is not an http(s) URL", fix);
    }
    return url;
  }

  private static StorageSettings s3Storage(JsonNode s3, Path file) {
    StorageSettings s = StorageSettings.defaults();
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

  /** A typo in a nested key must not silently fall back to a default. */
  /** The mapping as text values: YAML's {@code false} or {@code 0.3} mean the same as the quoted text. */
  private static Map<String, String> tableProperties(JsonNode node, Path file) {
    if (!node.isObject()) {
      throw SpecErrors.invalid(file, "output.table_properties", "expected a mapping of property name to value",
          "write e.g. 'table_properties: {delta.enableDeletionVectors: \"false\"}'");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isValueNode() || e.getValue().isNull()) {
        throw SpecErrors.invalid(file, "output.table_properties." + e.getKey(), "expected a text value, got "
            + e.getValue(), "give the value as text, e.g. \"false\"");
      }
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }

  static void checkKnown(JsonNode node, String prefix, Set<String> known, Path file) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw SpecErrors.invalid(file, prefix + "." + f, "unknown field", "use one of " + new java.util.TreeSet<>(known));
      }
    }
  }

  private static long durationMicros(String text, Path file, String field) {
    Duration d = Durations.parse(text).orElseThrow(() -> SpecErrors.invalid(file, field,
        "cannot read '" + text + "' as a duration", "write e.g. 10s, 500ms, 2m or PT10S"));
    return d.toNanos() / 1000;
  }

  private static int positiveInt(JsonNode n, Path file, String field) {
    if (!n.canConvertToInt() || n.asInt() <= 0) {
      throw SpecErrors.invalid(file, field, "'" + n.asText() + "' is not a positive whole number", "give a number above 0");
    }
    return n.asInt();
  }

  private static String text(JsonNode root, String field, Path file) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull() || n.asText().isBlank()) {
      throw SpecErrors.invalid(file, field, "missing", "add '" + field + ":' to the spec");
    }
    return n.asText();
  }

  private static String opt(JsonNode node, String field, String dflt) {
    JsonNode n = node.get(field);
    return n == null || n.isNull() ? dflt : n.asText();
  }

  private static List<String> list(JsonNode root, String field, Path file) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (n.isArray()) {
      n.forEach(x -> out.add(x.asText()));
    } else if (n.isTextual()) {
      out.add(n.asText());
    } else {
      throw SpecErrors.invalid(file, field, "expected a list of column names", "write e.g. " + field + ": [a, b]");
    }
    return out;
  }

  /** Maps an Avro record schema onto spec columns. */
  static final class AvroColumns {
    private AvroColumns() {}

    static List<Column> columns(String schemaJson, Path file) {
      Schema schema;
      try {
        schema = new Schema.Parser().parse(schemaJson);
      } catch (RuntimeException e) {
        throw SpecErrors.invalid(file, "schema", "not a valid Avro schema: " + e.getMessage(), "fix the .avsc file");
      }
      if (schema.getType() != Schema.Type.RECORD) {
        throw SpecErrors.invalid(file, "schema", "the Avro schema is a " + schema.getType() + ", not a record",
            "give an Avro record schema");
      }
      List<Column> out = new ArrayList<>();
      for (Schema.Field f : schema.getFields()) {
        out.add(new Column(f.name(), typeOf(f.name(), f.schema(), file)));
      }
      return out;
    }

    private static ColumnType typeOf(String field, Schema s, Path file) {
      if (s.getType() == Schema.Type.UNION) {
        List<Schema> nonNull = s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).toList();
        if (nonNull.size() != 1) {
          throw SpecErrors.invalid(file, "schema." + field, "unions other than [null, T] are not supported",
              "make the field a single type or an optional one");
        }
        s = nonNull.get(0);
      }
      String logical = s.getLogicalType() == null ? null : s.getLogicalType().getName();
      if ("decimal".equals(logical)) {
        org.apache.avro.LogicalTypes.Decimal d = (org.apache.avro.LogicalTypes.Decimal) s.getLogicalType();
        return ColumnType.decimal(d.getPrecision(), d.getScale());
      }
      if ("date".equals(logical)) {
        return ColumnType.DATE;
      }
      if (logical != null && logical.startsWith("timestamp")) {
        return ColumnType.TIMESTAMP;
      }
      return switch (s.getType()) {
        case LONG -> ColumnType.LONG;
        case INT -> ColumnType.INT;
        case DOUBLE, FLOAT -> ColumnType.DOUBLE;
        case BOOLEAN -> ColumnType.BOOLEAN;
        case STRING, ENUM -> ColumnType.STRING;
        default -> throw SpecErrors.invalid(file, "schema." + field, "Avro type " + s.getType() + " is not supported",
            "use long, int, double, boolean, string, enum, decimal, date or timestamp-millis/micros");
      };
    }
  }
}
