package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.model.Version;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.table.DeltaTable;
import io.dimstream.testkit.DimensionTestDriver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Records of a .jsonl file that are not valid UTF-8 get the dead letter the changes topic gives them. */
class BackfillBadEncodingTest {
  @TempDir
  Path dir;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A record whose city holds {@code bad} between two ASCII letters. */
  private static byte[] withBytesInCity(long id, byte... bad) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(utf8("{\"customer_id\":" + id + ",\"name\":\"Ann\",\"city\":\"O"));
    out.writeBytes(bad);
    out.writeBytes(utf8("o\",\"tier\":\"gold\",\"updated_at\":\"2026-01-0" + id + "T06:00:00Z\"}"));
    return out.toByteArray();
  }

  @Test
  void shouldRejectInvalidUtf8AsTheChangesTopicDoes() throws IOException {
    Path config = dir.resolve("customers.yaml");
    Files.writeString(config, ReplayCommandTest.SPEC_YAML);
    byte[] good = utf8("{\"customer_id\":1,\"name\":\"Åsa\",\"city\":\"Oslo\",\"tier\":\"gold\","
        + "\"updated_at\":\"2026-01-01T06:00:00Z\"}");
    byte[] truncated = withBytesInCity(2, (byte) 0xC3); // a two-byte sequence cut after its first byte
    byte[] overlong = withBytesInCity(3, (byte) 0xC0, (byte) 0xAF); // '/' encoded in two bytes
    byte[] surrogate = withBytesInCity(4, (byte) 0xED, (byte) 0xA0, (byte) 0x80); // U+D800 on its own
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    for (byte[] record : List.of(good, truncated, overlong, surrogate)) {
      file.writeBytes(record);
      file.writeBytes(utf8("\r\n"));
    }
    Path input = dir.resolve("changes.jsonl");
    Files.write(input, file.toByteArray());

    List<byte[]> read = new ArrayList<>();
    try (InputFiles.LineReader lines = InputFiles.open(input)) {
      lines.forEachRemaining(l -> read.add(l.value()));
    }
    assertThat(read).containsExactly(good, truncated, overlong, surrogate);

    Path dlq = dir.resolve("rejected.jsonl");
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new PrintWriter(err));
    int code = cl.execute("backfill", "--config", config.toString(), "--input", input.toString(),
        "--table", dir.resolve("table").toString(), "--dlq", dlq.toString());

    assertThat(code).as(err.toString()).isZero();
    try (Stream<Version> table = DeltaTable.open(dir.resolve("table")).latest().scan()) {
      assertThat(table.map(v -> v.attributes().toString())).singleElement().asString().contains("Åsa", "Oslo");
    }
    ObjectMapper m = new ObjectMapper();
    List<String> backfill = new ArrayList<>();
    List<byte[]> kept = new ArrayList<>();
    for (String l : Files.readAllLines(dlq)) {
      JsonNode n = m.readTree(l);
      backfill.add(n.get("reason").asText() + ": " + n.get("detail").asText());
      assertThat(n.get("record").isNull()).as("a record that is not UTF-8 is not written as text").isTrue();
      kept.add(java.util.Base64.getDecoder().decode(n.get("record_base64").asText()));
    }
    assertThat(kept).as("the file keeps each rejected record's bytes").containsExactly(truncated, overlong, surrogate);
    List<String> stream = new ArrayList<>();
    try (DimensionTestDriver topic = DimensionTestDriver.of(DimensionSpecLoader.load(config))) {
      topic.sendRecord(null, truncated).sendRecord(null, overlong).sendRecord(null, surrogate);
      topic.dlq().forEach(r -> stream.add(r.reason() + ": " + r.detail()));
    }
    assertThat(backfill).hasSize(3).allSatisfy(d -> assertThat(d).startsWith("bad-encoding: "));
    assertThat(backfill).isEqualTo(stream);
  }
}
