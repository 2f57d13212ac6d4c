package io.dimstream.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.dimstream.spec.DimensionSpecLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spec reference names every key the spec loader accepts. The keys are asked from the loader the way a user
 * meets them: a spec with an unknown key is refused with the list of the known ones at that place.
 */
class SpecReferenceTest {
  private static final Path REFERENCE = Path.of("docs/reference/spec.md");
  private static final String BASE = """
      name: customers
      columns: {customer_id: long, updated_at: timestamp, city: string}
      key: [customer_id]
      sequence: [updated_at]
      """;
  private static final Pattern KNOWN = Pattern.compile("use one of \\[([^]]*)]");

  @TempDir
  Path dir;

  @Test
  void shouldNameEveryKeyTheLoaderAcceptsInTheSpecReference() throws IOException {
    String page = Files.readString(REFERENCE);
    List<String> missing = new ArrayList<>();
    check(page, "", "not_a_key: 1\n", missing);
    check(page, "topics.", "topics: {not_a_key: x}\n", missing);
    check(page, "output.", "output: {not_a_key: x}\n", missing);
    check(page, "service.", "service: {not_a_key: x}\n", missing);
    check(page, "service.compaction.", "service: {compaction: {not_a_key: 1}}\n", missing);
    check(page, "service.http.", "service: {http: {not_a_key: 1}}\n", missing);
    check(page, "service.http.tls.", "service: {http: {tls: {not_a_key: 1}}}\n", missing);
    check(page, "service.http.auth.", "service: {http: {auth: {not_a_key: 1}}}\n", missing);

    assertThat(missing).as("spec keys the loader accepts that " + REFERENCE + " does not document").isEmpty();
  }

  private void check(String page, String prefix, String yaml, List<String> missing) throws IOException {
    Path file = dir.resolve("spec.yaml");
    Files.writeString(file, BASE + yaml);
    String message = catchThrowable(() -> DimensionSpecLoader.load(file)).getMessage();
    Matcher m = KNOWN.matcher(message);
    assertThat(m.find()).as("the loader lists the known keys for %s: %s", yaml.strip(), message).isTrue();
    for (String key : m.group(1).split(",\\s*")) {
      // a section key counts as documented through its own keys: `service.http.port` documents `service.http`
      if (!page.contains("`" + prefix + key + "`") && !page.contains("`" + prefix + key + ".")) {
        missing.add(prefix + key);
      }
    }
  }
}
