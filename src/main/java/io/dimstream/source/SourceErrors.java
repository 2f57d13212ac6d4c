package io.dimstream.source;

import io.dimstream.spec.PostgresSource;
import java.util.List;

/** Builds every {@link SourceException}: what is wrong with the database or the table, and the fix. */
final class SourceErrors {
  private SourceErrors() {}

  static SourceException cannotConnect(PostgresSource s, Exception cause) {
    return new SourceException("Cannot connect to " + s + ": " + cause.getMessage() + ". Fix: check that Postgres"
        + " listens on " + s.host() + ":" + s.port() + ", that database '" + s.database() + "' exists, and the user"
        + " and password of source.postgres (pg_hba.conf must let " + s.user() + " connect)", cause);
  }

  static SourceException walLevel(PostgresSource s, String level) {
    return new SourceException(s + ": wal_level is '" + level + "', but capturing changes needs 'logical'. Fix: run"
        + " ALTER SYSTEM SET wal_level = logical (or set it in postgresql.conf) and restart Postgres");
  }

  static SourceException noReplication(PostgresSource s) {
    return new SourceException(s + ": the user '" + s.user() + "' may not open a replication connection. Fix: ALTER"
        + " ROLE " + s.user() + " WITH REPLICATION (and allow it in pg_hba.conf)");
  }

  static SourceException noTable(PostgresSource s) {
    return new SourceException(s + ": the table " + s.qualifiedTable() + " does not exist (or the user cannot see"
        + " it). Fix: create it, or name an existing table as source.postgres.table (schema.table)");
  }

  static SourceException noSelect(PostgresSource s) {
    return new SourceException(s + ": the user '" + s.user() + "' may not read " + s.qualifiedTable() + ", which the"
        + " initial snapshot does. Fix: GRANT SELECT ON " + s.qualifiedTable() + " TO " + s.user());
  }

  static SourceException noPrimaryKey(PostgresSource s) {
    return new SourceException(s + ": the table " + s.qualifiedTable() + " has no primary key, so the dimension's"
        + " key cannot be taken from it. Fix: ALTER TABLE " + s.qualifiedTable() + " ADD PRIMARY KEY (...), or name"
        + " the key columns under 'key:' and run ALTER TABLE " + s.qualifiedTable() + " REPLICA IDENTITY FULL so"
        + " that deletes carry them");
  }

  static SourceException keyNotInIdentity(PostgresSource s, List<String> key, List<String> identity) {
    return new SourceException(s + ": a delete carries only the table's replica identity " + identity + ", which"
        + " lacks the dimension's key columns " + key + ", so deletes could not be applied. Fix: ALTER TABLE "
        + s.qualifiedTable() + " REPLICA IDENTITY FULL, or key the dimension by " + identity);
  }

  static SourceException publicationNeedsOwner(PostgresSource s) {
    return new SourceException(s + ": the publication '" + s.publication() + "' does not exist and only the"
        + " table's owner may create it. Fix: as the owner, CREATE PUBLICATION " + s.publication() + " FOR TABLE "
        + s.qualifiedTable() + "; or name an existing one as source.postgres.publication");
  }

  static SourceException publicationLacksTable(PostgresSource s) {
    return new SourceException(s + ": the publication '" + s.publication() + "' does not publish "
        + s.qualifiedTable() + ". Fix: ALTER PUBLICATION " + s.publication() + " ADD TABLE " + s.qualifiedTable()
        + ", or name another publication as source.postgres.publication");
  }

  static SourceException unsupportedColumns(PostgresSource s, List<String> columns) {
    return new SourceException(s + ": the columns " + columns + " have types a dimension cannot hold (supported:"
        + " integers, numeric, real, double, boolean, text types, uuid, json, enums, date, timestamp). Fix: declare"
        + " 'columns:' in the spec without them (with unknown_fields: ignore they are dropped silently)");
  }

  static SourceException notDebezium(String format) {
    return new SourceException("A spec with a database source reads the Debezium records the source writes, but it"
        + " sets format: " + format + ". Fix: remove 'format' (or set format: debezium-json)");
  }

  static SourceException positionGone(PostgresSource s, String offsetsTopic, Throwable cause) {
    return new SourceException("The database source " + s + " stopped: the position stored in " + offsetsTopic
        + " is no longer in the replication slot '" + s.slot() + "' (the slot was dropped, or the database was"
        + " recreated). Fix: if the database really is new, delete the topic " + offsetsTopic + " so the source"
        + " starts over with a snapshot; otherwise restore the slot's database", cause);
  }

  static SourceException failed(PostgresSource s, String message, Throwable cause) {
    return new SourceException("The database source " + s + " stopped: " + message + ". Fix: see the cause in the"
        + " log; a restart resumes from the last position stored in Kafka", cause);
  }
}
