package io.dimstream.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.FactDecoder;
import io.dimstream.enrich.FactShape;
import io.dimstream.spec.InputFormat;
import java.io.BufferedReader;
import java.io.IOException;
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

/**
 * Sends a JSON-lines file of facts to an enrichment's facts topic: each line as it is (a bad one reaches the
 * dead-letter topic), or, with {@code facts.format: avro}, each line written as Avro with the facts' schema
 * ({@link EnrichmentSpec#factsAvroSchema()}); a line that cannot be written so stops it before anything is sent.
 */
final class FactsProducer {
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

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
    AvroLineEncoder avro = spec.facts().format() == InputFormat.AVRO
        ? new AvroLineEncoder(spec.factsAvroSchema(), spec.facts()::column) : null;
    if (avro != null) {
      checkAll(file, avro); // a line Avro cannot hold stops it before anything is sent
    }
    AtomicReference<Exception> failed = new AtomicReference<>();
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = lines.readLine(); line != null && failed.get() == null; line = lines.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        byte[] value = line.getBytes(StandardCharsets.UTF_8);
        byte[] key = decoder.decode(parsed(value)) instanceof FactDecoder.Accepted a ? shape.factKeyBytes(a.fact())
            : null;
        producer.send(new ProducerRecord<>(spec.facts().topic(), key, avro == null ? value : avro.encode(value)),
            (md, e) -> {
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

  /** Converts every line to Avro without sending it; throws naming the first line that does not convert. */
  private static void checkAll(Path file, AvroLineEncoder avro) throws IOException {
    try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      long number = 0;
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        number++;
        if (!line.isBlank()) {
          try {
            avro.encode(line.getBytes(StandardCharsets.UTF_8));
          } catch (IllegalArgumentException e) {
            throw CliErrors.unconvertibleRecord(file, number, e.getMessage());
          }
        }
      }
    }
  }

  private static JsonNode parsed(byte[] line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      return null; // not JSON: sent unkeyed, for the dead-letter topic (or refused by the Avro conversion)
    }
  }
}
