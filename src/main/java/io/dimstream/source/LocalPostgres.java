package io.dimstream.source;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A Postgres server in a child process of this JVM (the binaries ship in a Maven Central jar), listening on
 * 127.0.0.1 with {@code wal_level = logical}, for the demo and the tests of the database source. Its data is
 * deleted when it stops.
 */
public final class LocalPostgres implements AutoCloseable {
  private final EmbeddedPostgres server;

  private LocalPostgres(EmbeddedPostgres server) {
    this.server = server;
  }

  /** Starts a server whose {@code wal_level} is {@code walLevel} ({@code logical} to capture changes). */
  public static LocalPostgres start(String walLevel) {
    try {
      return new LocalPostgres(EmbeddedPostgres.builder()
          .setServerConfig("listen_addresses", "127.0.0.1")
          .setServerConfig("wal_level", walLevel)
          .setServerConfig("max_wal_senders", "8")
          .setServerConfig("max_replication_slots", "8")
          .setPGStartupWait(Duration.ofSeconds(60))
          .start());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the local Postgres server: " + e.getMessage(), e);
    }
  }

  public int port() {
    return server.getPort();
  }

  /** A connection as the superuser {@code postgres} to database {@code database}. */
  public Connection connect(String database) throws SQLException {
    return server.getDatabase("postgres", database).getConnection();
  }

  /**
   * Creates a database owned by a new login role with REPLICATION, as a site would for the source.
   *
   * @return the URL of {@code source.postgres.url}: {@code postgresql://user:password@127.0.0.1:port/database}
   */
  public String createOwner(String database, String user, String password) throws SQLException {
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + user + " LOGIN REPLICATION PASSWORD '" + password + "'");
      s.execute("CREATE DATABASE " + database + " OWNER " + user);
    }
    return "postgresql://" + user + ":" + password + "@127.0.0.1:" + port() + "/" + database;
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
