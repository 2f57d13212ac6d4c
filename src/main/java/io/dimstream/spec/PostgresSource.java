package io.dimstream.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code source: postgres:} section of a dimension spec: one table whose changes the service captures itself
 * with Debezium's Postgres connector (README: "From a database").
 *
 * @param schema      the table's schema ({@code public} when the spec names the table without one)
 * @param slot        the logical replication slot the connector reads (created when missing)
 * @param publication the publication of the table the connector reads (created when missing)
 * @param properties  extra Debezium connector properties, passed as they are and applied last
 */
public record PostgresSource(String host, int port, String database, String user, String password, String schema,
    String table, String slot, String publication, Snapshot snapshot, Map<String, String> properties) {

  /** Whether the connector first reads the table's current rows ({@code initial}) or only streams changes. */
  public enum Snapshot { INITIAL, NEVER }

  private static final Set<String> FIELDS = Set.of("url", "host", "port", "database", "user", "password", "table",
      "slot", "publication", "snapshot", "properties");

  public PostgresSource {
    properties = Map.copyOf(properties);
  }

  /** {@code schema.table}, as Debezium's {@code table.include.list} and the catalog name it. */
  public String qualifiedTable() {
    return schema + "." + table;
  }

  /** A JDBC URL of the database, for the checks at start (the connector builds its own). */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database;
  }

  /** Whether the spec's YAML has a database source section. */
  public static boolean declaredIn(JsonNode root) {
    return root != null && root.has("source") && !root.get("source").isNull();
  }

  /**
   * Reads {@code source:} of a spec whose dimension is named {@code name}.
   *
   * @throws SpecException naming the field and the fix when the section cannot be used
   */
  public static PostgresSource parse(JsonNode source, String name, Path file) {
    if (!source.isObject() || source.size() != 1 || !source.has("postgres")) {
      throw SpecErrors.invalid(file, "source", "expected a mapping with one entry, 'postgres'",
          "write source: {postgres: {url: postgresql://user:password@host:5432/db, table: public.customers}}");
    }
    JsonNode pg = source.get("postgres");
    if (!pg.isObject()) {
      throw SpecErrors.invalid(file, "source.postgres", "expected a mapping",
          "give url (or host, port, database, user, password) and table");
    }
    for (Iterator<String> it = pg.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw SpecErrors.invalid(file, "source.postgres." + f, "unknown field",
            "use one of " + new java.util.TreeSet<>(FIELDS));
      }
    }
    String host = "127.0.0.1";
    int port = 5432;
    String database = null;
    String user = null;
    String password = null;
    if (pg.has("url")) {
      String url = pg.get("url").asText();
      URI uri;
      try {
        uri = URI.create(url.startsWith("jdbc:") ? url.substring(5) : url);
      } catch (IllegalArgumentException e) {
        throw SpecErrors.invalid(file, "source.postgres.url", "cannot read '" + redact(url) + "' as a URL: "
            + e.getMessage(), "write postgresql://user:password@host:5432/database");
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("postgresql") && !scheme.equals("postgres")) {
        throw SpecErrors.invalid(file, "source.postgres.url", "the URL '" + redact(url) + "' is not a postgresql://"
            + " URL", "write postgresql://user:password@host:5432/database");
      }
      if (uri.getHost() != null) {
        host = uri.getHost();
      }
      if (uri.getPort() > 0) {
        port = uri.getPort();
      }
      String path = uri.getPath() == null ? "" : uri.getPath();
      database = path.startsWith("/") ? path.substring(1) : path;
      String info = uri.getRawUserInfo();
      if (info != null) {
        int colon = info.indexOf(':');
        user = decode(colon < 0 ? info : info.substring(0, colon));
        password = colon < 0 ? null : decode(info.substring(colon + 1));
      }
    }
    host = text(pg, "host", host);
    port = pg.has("port") ? port(pg.get("port"), file) : port;
    database = text(pg, "database", database);
    user = text(pg, "user", user);
    password = text(pg, "password", password);
    if (database == null || database.isBlank()) {
      throw SpecErrors.invalid(file, "source.postgres.database", "no database is named",
          "end the url with /<database>, or set database:");
    }
    if (user == null || user.isBlank()) {
      throw SpecErrors.invalid(file, "source.postgres.user", "no user is named",
          "put user:password@ in the url, or set user: and password:");
    }
    String qualified = text(pg, "table", null);
    if (qualified == null || qualified.isBlank()) {
      throw SpecErrors.invalid(file, "source.postgres.table", "missing", "name the table, e.g. table: public.customers");
    }
    String[] parts = qualified.split("\\.", -1);
    if (parts.length > 2 || parts[parts.length - 1].isBlank() || (parts.length == 2 && parts[0].isBlank())) {
      throw SpecErrors.invalid(file, "source.postgres.table", "cannot read '" + qualified + "' as schema.table",
          "write e.g. table: public.customers");
    }
    String schema = parts.length == 2 ? parts[0] : "public";
    String table = parts[parts.length - 1];
    String defaultName = "dimstream_" + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    String slot = text(pg, "slot", defaultName);
    if (!slot.matches("[a-z0-9_]{1,63}")) {
      throw SpecErrors.invalid(file, "source.postgres.slot", "'" + slot + "' is not a replication slot name",
          "use at most 63 lower-case letters, digits and underscores");
    }
    String publication = text(pg, "publication", defaultName);
    Snapshot snapshot = Snapshot.INITIAL;
    if (pg.has("snapshot")) {
      String s = pg.get("snapshot").asText().toLowerCase(Locale.ROOT);
      snapshot = switch (s) {
        case "initial" -> Snapshot.INITIAL;
        case "never", "no_data" -> Snapshot.NEVER;
        default -> throw SpecErrors.invalid(file, "source.postgres.snapshot", "unknown value '" + s + "'",
            "use initial (read the table's rows first, the default) or never (only changes from now on)");
      };
    }
    Map<String, String> props = new LinkedHashMap<>();
    JsonNode p = pg.get("properties");
    if (p != null && !p.isNull()) {
      if (!p.isObject()) {
        throw SpecErrors.invalid(file, "source.postgres.properties", "expected a mapping of Debezium property to value",
            "write e.g. properties: {heartbeat.interval.ms: \"10000\"}");
      }
      p.fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
    }
    return new PostgresSource(host, port, database, user, password, schema, table, slot, publication, snapshot,
        props);
  }

  @Override
  public String toString() {
    return "postgres " + user + "@" + host + ":" + port + "/" + database + " table " + qualifiedTable();
  }

  private static String text(JsonNode node, String field, String dflt) {
    JsonNode n = node.get(field);
    return n == null || n.isNull() ? dflt : n.asText();
  }

  private static int port(JsonNode n, Path file) {
    if (!n.canConvertToInt() || n.asInt() <= 0 || n.asInt() > 65535) {
      throw SpecErrors.invalid(file, "source.postgres.port", "'" + n.asText() + "' is not a port", "give 1..65535");
    }
    return n.asInt();
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** A URL as it may appear in a message: without its password. */
  private static String redact(String url) {
    return url.replaceAll("(//[^:/@]*:)[^@]*@", "$1***@");
  }
}
