package io.dimstream.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a spec file (a dimension's, an enrichment's) as the YAML mapping every spec is. */
public final class SpecYaml {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private SpecYaml() {}

  /**
   * The file's top-level mapping.
   *
   * @param kind what the file is, for messages: "dimension spec", "enrichment spec"
   * @param topLevelFix what the top level should hold, the fix when the file is no mapping
   * @throws SpecException when the file cannot be read, is not YAML, or is not a mapping
   */
  public static JsonNode readMapping(Path file, String kind, String topLevelFix) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new SpecException(file + ": cannot read the " + kind + ": " + e.getMessage()
          + ". Fix: check that the file exists and is valid YAML");
    }
    if (root == null || !root.isObject()) {
      throw new SpecException(file + ": field '(top level)': the file is not a YAML mapping. Fix: " + topLevelFix);
    }
    return root;
  }
}
