package io.dimstream.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The fenced blocks of the project's Markdown pages (README.md and docs/), as the doc tests read them. */
final class DocExamples {
  private static final Pattern FENCE = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```", Pattern.DOTALL);

  private DocExamples() {}

  /** One fenced block: its page, its language tag (maybe empty) and its text. */
  record Block(Path page, String language, String text) {}

  static List<Path> pages() {
    List<Path> pages = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CONTRIBUTING.md")));
    try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  static List<Block> blocks() {
    List<Block> out = new ArrayList<>();
    for (Path page : pages()) {
      String text;
      try {
        text = Files.readString(page);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Matcher m = FENCE.matcher(text);
      while (m.find()) {
        out.add(new Block(page, m.group(1), m.group(2)));
      }
    }
    return out;
  }
}
