package io.dimstream.cli;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import io.dimstream.batch.BlankLines;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.InputFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a file of change events as record values: JSON lines ({@code .jsonl}, {@code .json}, one record per
 * non-blank line, passed on byte for byte, never decoded here, so a malformed line, or one that is not valid UTF-8,
 * reaches the dead-letter topic as it is), or CSV
 * with a header row ({@code .csv}; each row becomes a JSON object, empty cells null). For a spec whose input format
 * is Avro, {@link #forTopic} converts each record into Avro binary with the spec's writer schema.
 */
final class InputFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private InputFiles() {}

  /** One input record: its 1-based line (or row) number and its value bytes. */
  record Line(long number, byte[] value) {}

  interface LineReader extends Iterator<Line>, AutoCloseable {
    @Override
    void close() throws IOException;
  }

  static long countRecords(Path file) throws IOException {
    // Bytes, not lines of text: decoding a large file to strings only to count them cost as much as decoding its
    // records. A line counts when it holds anything but ASCII whitespace; one with other bytes is decoded and asked
    // String.isBlank, so Unicode whitespace counts exactly as the readers count it.
    long n = 0;
    try (var in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      java.io.ByteArrayOutputStream nonAscii = new java.io.ByteArrayOutputStream();
      boolean text = false;
      boolean other = false;
      boolean afterCr = false;
      byte[] buf = new byte[1 << 16];
      for (int r = in.read(buf); r >= 0; r = in.read(buf)) {
        for (int i = 0; i < r; i++) {
          byte b = buf[i];
          if (b > ' ') {
            text = true; // most bytes: printable ASCII
            afterCr = false;
            continue;
          }
          boolean crLf = afterCr && b == '\n';
          afterCr = b == '\r';
          if (crLf) {
            continue; // as BufferedReader.readLine: \r, \n and \r\n each end a line
          }
          if (b == '\n' || b == '\r') {
            n += counts(text, other, nonAscii) ? 1 : 0;
            text = false;
            other = false;
            nonAscii.reset();
          } else if (b < 0) {
            other = true;
            nonAscii.write(b);
          } else if (!BlankLines.isAsciiWhitespace(b)) {
            text = true;
          }
        }
      }
      n += counts(text, other, nonAscii) ? 1 : 0;
    }
    return isCsv(file) ? Math.max(0, n - 1) : n;
  }

  private static boolean counts(boolean text, boolean other, java.io.ByteArrayOutputStream nonAscii) {
    return text || (other && !nonAscii.toString(StandardCharsets.UTF_8).isBlank());
  }

  static boolean isCsv(Path file) {
    return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv");
  }

  static LineReader open(Path file) throws IOException {
    return isCsv(file) ? csv(file) : jsonLines(file);
  }

  /**
   * The records of {@code file} as the changes topic of {@code spec} takes them: as {@link #open} reads them, or,
   * when the spec's input format is Avro, each converted by {@link AvroLineEncoder}. A record that cannot be
   * converted throws an {@link CliErrors.InputError} naming the file, the line and what is wrong.
   */
  static LineReader forTopic(Path file, DimensionSpec spec) throws IOException {
    LineReader lines = open(file);
    if (spec.inputFormat() != InputFormat.AVRO) {
      return lines;
    }
    AvroLineEncoder avro = new AvroLineEncoder(spec);
    return new LineReader() {
      @Override
      public boolean hasNext() {
        return lines.hasNext();
      }

      @Override
      public Line next() {
        Line line = lines.next();
        try {
          return new Line(line.number(), avro.encode(line.value()));
        } catch (IllegalArgumentException e) {
          throw CliErrors.unconvertibleRecord(file, line.number(), e.getMessage());
        }
      }

      @Override
      public void close() throws IOException {
        lines.close();
      }
    };
  }

  /**
   * Reads every record of {@code file} through {@link #forTopic} and returns how many there are, so that a record
   * that cannot be converted stops a command before anything is sent.
   */
  static long checkAll(Path file, DimensionSpec spec) throws IOException {
    long n = 0;
    try (LineReader lines = forTopic(file, spec)) {
      while (lines.hasNext()) {
        lines.next();
        n++;
      }
    }
    return n;
  }

  private static LineReader jsonLines(Path file) throws IOException {
    return new ByteLines(file);
  }

  private static LineReader csv(Path file) throws IOException {
    CsvMapper mapper = new CsvMapper();
    MappingIterator<Map<String, String>> rows = mapper.readerForMapOf(String.class)
        .with(CsvSchema.emptySchema().withHeader())
        .readValues(file.toFile());
    return new LineReader() {
      private long number = 1;

      @Override
      public boolean hasNext() {
        return rows.hasNext();
      }

      @Override
      public Line next() {
        Map<String, String> row = rows.next();
        number++;
        ObjectNode node = JSON.createObjectNode();
        row.forEach((k, v) -> {
          if (v == null || v.isEmpty()) {
            node.putNull(k);
          } else {
            node.put(k, v);
          }
        });
        try {
          return new Line(number, JSON.writeValueAsBytes(node));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }

      @Override
      public void close() throws IOException {
        rows.close();
      }
    };
  }
}
