package io.dimstream.cli;

import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.FactDecoder;
import io.dimstream.enrich.FactShape;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Sends a JSON-lines file of facts to an enrichment's facts topic, each line as it is (a bad one reaches the dead-letter topic). */
final class FactsProducer {
  private FactsProducer() {}

  /** Sends every non-blank line, keyed by its fact key when it reads as a fact; returns the count once all are acknowledged. */
  static long produce(EnrichmentSpec spec, Path file, Map<String, Object> client) throws Exception {
    Properties p = new Properties();
    p.putAll(client);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    FactDecoder decoder = new FactDecoder(spec);
    FactShape shape = new FactShape(spec);
    AtomicReference<Exception> failed = new AtomicReference<>();
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = lines.readLine(); line != null && failed.get() == null; line = lines.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        byte[] value = line.getBytes(StandardCharsets.UTF_8);
        byte[] key = decoder.decode(value) instanceof FactDecoder.Accepted a ? shape.factKeyBytes(a.fact()) : null;
        producer.send(new ProducerRecord<>(spec.facts().topic(), key, value), (md, e) -> {
          if (e != null) {
            failed.compareAndSet(null, e);
          }
        });
        sent++;
      }
      producer.flush();
    }
    if (failed.get() != null) {
      throw CliErrors.produceFailed(spec.facts().topic(), failed.get());
    }
    return sent;
  }
}
