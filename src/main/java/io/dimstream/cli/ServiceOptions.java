package io.dimstream.cli;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.ServiceSettings;
import io.dimstream.storage.TableLocation;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Command-line overrides of the spec's {@code service:} section, shared by {@code run} and {@code demo}. */
final class ServiceOptions {
  @Option(names = "--bootstrap-servers", description = "Use this Kafka cluster instead of the spec's "
      + "service.kafka.bootstrap.servers; with neither, an embedded broker is started.")
  String bootstrapServers;

  @Option(names = "--data-dir", description = "Local state (embedded broker, Streams stores); default: the spec's "
      + "service.data_dir, else ./data.")
  Path dataDir;

  @Option(names = "--table", converter = TableLocationConverter.class, description = "The Delta table: a local "
      + "directory, s3://bucket/prefix or az://container/prefix; default: the spec's service.table_path, else <data-dir>/tables/<name>.")
  TableLocation table;

  @Option(names = "--http-port", description = "Port of the query endpoint on 127.0.0.1 (0 = any free port); "
      + "default: the spec's service.http.port, else 8080.")
  Integer httpPort;

  @Option(names = "--http-host", description = "Address the query endpoint binds, also advertised to other instances "
      + "for routing; default: the spec's service.http.host, else 127.0.0.1. In a container: 0.0.0.0.")
  String httpHost;

  @Option(names = "--http-insecure-bind", description = "Let the query endpoint bind a non-loopback address (--http-host)"
      + " without TLS and authentication. Only where something else keeps the port private: a container whose port is"
      + " mapped to the host's loopback, or a proxy that authenticates.")
  boolean httpInsecureBind;

  DimensionSpec apply(DimensionSpec spec) {
    ServiceSettings s = spec.service();
    if (dataDir != null) {
      boolean tableFollowsDataDir = s.tableFollowsDataDir(spec.name());
      s = s.withDataDir(dataDir);
      if (tableFollowsDataDir) {
        s = s.withTablePath(dataDir.resolve("tables").resolve(spec.name()));
      }
    }
    if (table != null) {
      s = s.withTablePath(table);
    }
    if (httpPort != null) {
      s = s.withHttpPort(httpPort);
    }
    if (httpHost != null) {
      s = s.withHttpHost(httpHost);
    }
    if (httpInsecureBind) {
      s = s.withHttpSecurity(s.httpSecurity().allowingInsecureBind());
    }
    return spec.withService(s);
  }
}
