package io.dimstream.service;

import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Resolves the Kafka client properties a command uses: flag, then spec, then the local embedded broker. */
public final class KafkaClients {
  /** Where `run` writes the embedded broker's address so other commands on the same data dir can find it. */
  public static final String BOOTSTRAP_FILE = "bootstrap.servers";

  private KafkaClients() {}

  public static Path bootstrapFile(DimensionSpec spec) {
    return spec.service().dataDir().resolve("kafka").resolve(BOOTSTRAP_FILE);
  }

  public static Map<String, Object> properties(DimensionSpec spec, String bootstrapOverride) {
    Map<String, Object> props = new HashMap<>(spec.service().kafka());
    if (bootstrapOverride != null) {
      props.put("bootstrap.servers", bootstrapOverride);
    } else if (spec.service().bootstrapServers() == null) {
      Path file = bootstrapFile(spec);
      try {
        props.put("bootstrap.servers", Files.readString(file).trim());
      } catch (IOException e) {
        throw ServiceErrors.noBroker(file);
      }
    }
    return props;
  }
}
