package io.dimstream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * The floor under backfill: parse the change file's JSON lines with Jackson and write {@code rows} rows of the
 * version shape to one plain Parquet file (snappy), nothing else. Usage: {@code ParquetFloor <in.jsonl> <out.parquet>
 * <rows>}; the rows are the first lines' values, the file cycled if it has fewer lines than rows.
 */
public final class ParquetFloor {
  private static final Schema ROW = SchemaBuilder.record("customers_version").fields()
      .requiredLong("customer_id").optionalString("name").optionalString("email").optionalString("city")
      .optionalString("tier").requiredString("valid_from").optionalString("valid_to").requiredBoolean("is_current")
      .endRecord();

  private ParquetFloor() {}

  public static void main(String[] args) throws Exception {
    Path in = Path.of(args[0]);
    Path out = Path.of(args[1]);
    long rows = Long.parseLong(args[2]);
    Files.deleteIfExists(out);
    ObjectMapper json = new ObjectMapper();
    long parsed = 0;
    long written = 0;
    try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(out))
        .withSchema(ROW).withCompressionCodec(CompressionCodecName.SNAPPY).build()) {
      while (written < rows) {
        try (BufferedReader r = Files.newBufferedReader(in, StandardCharsets.UTF_8)) {
          for (String line = r.readLine(); line != null && written < rows; line = r.readLine()) {
            JsonNode n = json.readTree(line);
            parsed++;
            GenericRecord g = new GenericData.Record(ROW);
            g.put("customer_id", n.path("customer_id").asLong());
            g.put("name", n.path("name").asText(null));
            g.put("email", n.path("email").asText(null));
            g.put("city", n.path("city").asText(null));
            g.put("tier", n.path("tier").asText(null));
            g.put("valid_from", n.path("updated_at").asText());
            g.put("valid_to", null);
            g.put("is_current", true);
            w.write(g);
            written++;
          }
        }
      }
    }
    System.out.printf("parsed %d lines, wrote %d rows to %s (%d bytes)%n", parsed, written, out, Files.size(out));
  }
}
