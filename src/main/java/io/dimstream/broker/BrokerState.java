package io.dimstream.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;

/** What an embedded broker keeps in its data directory between runs: the cluster id and the ports it used. */
record BrokerState(String clusterId, int port, int controllerPort) {
  static final String FILE_NAME = "dimstream-broker.properties";

  static Optional<BrokerState> read(Path dataDir) throws IOException {
    Path file = dataDir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    String clusterId = p.getProperty("cluster.id");
    if (clusterId == null || clusterId.isBlank()) {
      throw new IOException(file + " has no cluster.id");
    }
    try {
      return Optional.of(new BrokerState(clusterId, Integer.parseInt(p.getProperty("port", "0")),
          Integer.parseInt(p.getProperty("controller.port", "0"))));
    } catch (NumberFormatException e) {
      throw new IOException(file + " has a port that is not a number: " + e.getMessage(), e);
    }
  }

  void write(Path dataDir) throws IOException {
    Properties p = new Properties();
    p.setProperty("cluster.id", clusterId);
    p.setProperty("port", Integer.toString(port));
    p.setProperty("controller.port", Integer.toString(controllerPort));
    Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      p.store(out, "dimstream embedded Kafka broker: keep the cluster id, or the log directories cannot be used");
    }
    Files.move(tmp, dataDir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
