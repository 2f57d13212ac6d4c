package io.dimstream.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** The CLI reference names every command and every option picocli knows, so the page cannot fall behind the code. */
class CliReferenceTest {
  private static final Path REFERENCE = Path.of("docs/reference/cli.md");

  @Test
  void shouldNameEveryCommandAndOptionInTheCliReference() throws IOException {
    String page = Files.readString(REFERENCE);
    List<String> missing = new ArrayList<>();
    walk(Main.commandLine().getCommandSpec(), page, missing);

    assertThat(missing).as("commands and options of the CLI that " + REFERENCE + " does not mention").isEmpty();
  }

  private static void walk(CommandSpec command, String page, List<String> missing) {
    String path = command.qualifiedName(" ");
    if (command.parent() != null && !page.contains(path.substring("dimstream ".length()))) {
      missing.add(path);
    }
    for (OptionSpec option : command.options()) {
      if (option.usageHelp() || option.versionHelp()) {
        continue;
      }
      if (!Pattern.compile("(?<![\\w-])" + Pattern.quote(option.longestName()) + "(?![\\w-])").matcher(page).find()) {
        missing.add(path + " " + option.longestName());
      }
    }
    for (CommandLine sub : command.subcommands().values()) {
      if (!sub.getCommandName().equals("help")) {
        walk(sub.getCommandSpec(), page, missing);
      }
    }
  }
}
