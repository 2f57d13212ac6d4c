package io.dimstream.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineBlocksTest {
  @TempDir
  Path dir;

  @Test
  void shouldKeepACrLfSplitAtABlockEdgeAsOneLineEnd() throws Exception {
    // block of 3 bytes: "ab\r" | "\ncd" — the \r\n must not make an empty line 2
    assertThat(read("ab\r\ncd\r\n", 3)).containsExactly("1:ab", "2:cd");
  }

  @Test
  void shouldJoinARecordSplitAtABlockEdge() throws Exception {
    assertThat(read("{\"id\":1}\n{\"id\":22}\n", 12)).containsExactly("1:{\"id\":1}", "2:{\"id\":22}");
  }

  @Test
  void shouldReadTheLastLineWithoutALineEnd() throws Exception {
    assertThat(read("a\nb", 1)).containsExactly("1:a", "2:b");
  }

  @Test
  void shouldReadALineLongerThanTheBlock() throws Exception {
    String longLine = "x".repeat(1_000);
    assertThat(read("a\n" + longLine + "\nb\n", 16)).containsExactly("1:a", "2:" + longLine, "3:b");
  }

  @Test
  void shouldCountBlankLinesAndLoneCarriageReturnsButSkipBlankRecords() throws Exception {
    // an em space and an en space are Unicode whitespace: line 6 is blank
    assertThat(read("a\n\n  \t\r\rb\r\n\u2003\u2002\nc", 4)).containsExactly("1:a", "5:b", "7:c");
  }

  @Test
  void shouldSplitAnyTextAsReadLineDoesWhateverTheBlockSize() throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    char[] alphabet = {'a', 'b', ' ', '\t', '\r', '\n', '{', '}'};
    for (int round = 0; round < 300; round++) {
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(60);
      for (int i = 0; i < length; i++) {
        text.append(alphabet[random.nextInt(alphabet.length)]);
      }
      int blockBytes = 1 + random.nextInt(9);
      assertThat(read(text.toString(), blockBytes))
          .as("seed %d, round %d, block %d bytes, text %s", seed, round, blockBytes,
              text.toString().replace("\r", "\\r").replace("\n", "\\n"))
          .containsExactlyElementsOf(readLine(text.toString()));
    }
  }

  /** What BufferedReader.readLine makes of the text: numbered lines, blank ones left out. */
  private static List<String> readLine(String text) throws Exception {
    List<String> out = new ArrayList<>();
    BufferedReader reader = new BufferedReader(new StringReader(text));
    long number = 0;
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      number++;
      if (!line.isBlank()) {
        out.add(number + ":" + line);
      }
    }
    return out;
  }

  private List<String> read(String text, int blockBytes) throws Exception {
    Path file = dir.resolve("lines.jsonl");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>();
    try (LineBlocks blocks = new LineBlocks(file, blockBytes)) {
      while (blocks.hasNext()) {
        for (Backfill.Input in : blocks.next().inputs()) {
          out.add(in.line() + ":" + new String(in.value(), StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }
}
