package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackfillProgressTest {
  @Test
  void shouldFinishTheReadingLineAndCountTheGroupsFoldedOnASecondLine() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (BackfillProgress progress = new BackfillProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8),
        false)) {
      progress.reading().bytes(2_000_000);
      progress.read(4_096, 1_000_000);
      progress.read(904, 2_000_000);
      progress.folding(4);
      for (int i = 0; i < 4; i++) {
        progress.folded(100);
      }
    }

    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).contains("5,000 records, 1/1 MB read").contains(" in ");
    assertThat(lines.get(1)).contains("4/4 key groups folded and written").contains(" in ");
  }

  @Test
  void shouldCloseOnlyTheReadingLineWhenTheBackfillStopsBeforeFolding() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (BackfillProgress progress = new BackfillProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8),
        false)) {
      progress.read(10, -1);
    }

    assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList()).singleElement().asString()
        .contains("10 records").doesNotContain("folded");
  }
}
