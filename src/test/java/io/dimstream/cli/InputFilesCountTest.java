package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InputFilesCountTest {
  @TempDir
  Path dir;

  static Stream<Arguments> files() {
    return Stream.of(
        Arguments.of("lf", "{\"a\":1}\n{\"a\":2}\n", 2),
        Arguments.of("no final newline", "{\"a\":1}\n{\"a\":2}", 2),
        Arguments.of("crlf", "{\"a\":1}\r\n{\"a\":2}\r\n", 2),
        Arguments.of("cr only", "{\"a\":1}\r{\"a\":2}\r{\"a\":3}", 3),
        Arguments.of("blank lines of ascii whitespace", "\n  \t\n{\"a\":1}\n\u000B\f\n\n{\"a\":2}\n \n", 2),
        Arguments.of("a line of unicode whitespace only", "{\"a\":1}\n\u2003\u2029\n{\"a\":2}\n", 2),
        Arguments.of("non-ascii text", "{\"a\":\"é\"}\n\u00a0{\"a\":\"日本\"}\n", 2),
        Arguments.of("empty", "", 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void shouldCountTheRecordsTheReaderReads(String name, String content, int records) throws Exception {
    Path file = dir.resolve("changes.jsonl");
    Files.writeString(file, content, StandardCharsets.UTF_8);
    long read = 0;
    try (InputFiles.LineReader lines = InputFiles.open(file)) {
      while (lines.hasNext()) {
        lines.next();
        read++;
      }
    }
    assertThat(read).isEqualTo(records);
    assertThat(InputFiles.countRecords(file)).isEqualTo(records);
  }
}
