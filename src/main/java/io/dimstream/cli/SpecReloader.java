package io.dimstream.cli;

import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.service.DimensionHost;
import io.dimstream.spec.DimensionSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the spec files of {@code run --config DIR}: when a file is added, removed or changed, the process runs the
 * new set ({@link DimensionHost#reload}) without a restart. Files are compared by content, so a save that changes
 * nothing, or a touch, reloads nothing. A set that cannot be loaded (a spec error, a conflict) is logged with its
 * reason and every dimension runs on as before, until the files change again.
 */
final class SpecReloader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SpecReloader.class);

  /** Loads every dimension and enrichment spec of the {@code --config} paths, as the start did. */
  interface Loader {
    Loaded load() throws IOException;
  }

  /**
   * The specs of one look at the files, with the fingerprint of what each dimension runs: its spec file's content
   * and those of the enrichment files joined with it.
   */
  record Loaded(List<DimensionSpec> specs, Map<String, List<EnrichmentSpec>> enrichments,
      Map<String, String> fingerprints) {}

  private final DimensionHost host;
  private final Loader loader;
  private final ScheduledExecutorService timer;
  /** The content of every spec file at the last look, by path: what a change is measured against. */
  private Map<Path, String> files;
  /** What each dimension runs now, by name. */
  private Map<String, String> running;

  private SpecReloader(DimensionHost host, Loader loader, Map<Path, String> files, Map<String, String> running) {
    this.host = host;
    this.loader = loader;
    this.files = files;
    this.running = running;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "dimstream-spec-reload");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts looking at {@code paths} every {@code interval}, the process having started with {@code started}.
   *
   * @param paths the {@code --config} files and directories, and the {@code --enrich} files
   */
  static SpecReloader start(DimensionHost host, Loader loader, List<Path> paths, Loaded started, Duration interval)
      throws IOException {
    SpecReloader r = new SpecReloader(host, loader, contents(paths), started.fingerprints());
    r.timer.scheduleWithFixedDelay(() -> r.look(paths), interval.toMillis(), interval.toMillis(),
        TimeUnit.MILLISECONDS);
    LOG.info("Watching {} for spec changes every {} ms: a dimension added, removed or changed is started, stopped or"
        + " restarted without a restart of the process", paths, interval.toMillis());
    return r;
  }

  /** One look: reloads when a file's content changed since the last look. */
  void look(List<Path> paths) {
    try {
      Map<Path, String> now = contents(paths);
      if (now.equals(files)) {
        return;
      }
      files = now;
      Loaded loaded = loader.load();
      Set<String> changed = new HashSet<>();
      loaded.fingerprints().forEach((name, fp) -> {
        if (running.containsKey(name) && !running.get(name).equals(fp)) {
          changed.add(name);
        }
      });
      host.reload(loaded.specs(), loaded.enrichments(), changed);
      running = loaded.fingerprints();
    } catch (IOException | RuntimeException e) {
      LOG.error("The spec files changed, but the new set was not loaded, so every dimension runs on as before (fix"
          + " the files; they are read again when they change): {}", e.getMessage());
    }
  }

  /** The SHA-256 of every *.yaml / *.yml file of {@code paths} (a directory's files, a file itself), by path. */
  static Map<Path, String> contents(List<Path> paths) throws IOException {
    Map<Path, String> out = new HashMap<>();
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        try (var in = Files.list(p)) {
          for (Path f : in.filter(f -> f.getFileName().toString().matches(".*\\.ya?ml")).toList()) {
            if (Files.isRegularFile(f)) {
              out.put(f, sha256(f));
            }
          }
        }
      } else if (Files.isRegularFile(p)) {
        out.put(p, sha256(p));
      }
    }
    return out;
  }

  static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
