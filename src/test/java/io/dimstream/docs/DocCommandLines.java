package io.dimstream.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the {@code dimstream ...} command lines of the docs' code blocks as a shell would take them. */
final class DocCommandLines {
  private DocCommandLines() {}

  /** The lines of a block, each ending in a backslash joined with the next, as the shell does. */
  static List<String> joinContinuations(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
      } else {
        out.add(current.append(line).toString());
        current.setLength(0);
      }
    }
    return out;
  }

  /** The command without a trailing comment, pipe or redirection. */
  static String commandPart(String args) {
    String s = args.replaceAll("\\s+#.*$", "");
    for (String cut : List.of(" | ", " > ", " 2>", " &&")) {
      int i = s.indexOf(cut);
      if (i >= 0) {
        s = s.substring(0, i);
      }
    }
    return s.strip().replaceAll("\\s+", " ");
  }

  /** A synopsis rather than a command: optional parts, alternatives, placeholders. */
  static boolean isTemplate(String args) {
    return args.contains("[") || args.contains("<") || args.contains("...") || args.contains("|")
        || args.contains("…") || args.contains("{");
  }

  /** Splits like a shell for the docs' lines: spaces, and single or double quotes around a word. */
  static String[] tokens(String args) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("\"([^\"]*)\"|'([^']*)'|(\\S+)").matcher(args);
    while (m.find()) {
      out.add(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3));
    }
    return out.toArray(String[]::new);
  }
}
