package io.dimstream.storage;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Azurite, Microsoft's Azure Storage emulator (from the npm registry), run as a process on 127.0.0.1 with a free
 * port, its blobs in memory; {@link #close()} stops it. Found at the system property {@code dimstream.azurite}, the
 * environment variable {@code DIMSTREAM_AZURITE}, or where {@code .ci/run} installs it
 * ({@code ~/.cache/dimstream/azurite}).
 */
public final class AzuriteServer implements AutoCloseable {
  /** Azurite's well-known development account and key (published in its documentation; no secret). */
  public static final String ACCOUNT = "devstoreaccount1";
  public static final String KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
  private static final Pattern LISTENING = Pattern.compile("listens on (http://[0-9.]+:\\d+)");

  private final Process process;
  private final String url;
  private final List<String> output = new ArrayList<>();

  private AzuriteServer() throws IOException, InterruptedException {
    Path bin = executable();
    ProcessBuilder pb = new ProcessBuilder(bin.toString(), "--blobHost", "127.0.0.1", "--blobPort", "0",
        "--inMemoryPersistence", "--extentMemoryLimit", "512", "--skipApiVersionCheck", "--disableTelemetry",
        "--disableProductStyleUrl").redirectErrorStream(true);
    String debugLog = System.getProperty("dimstream.azurite.debug");
    if (debugLog != null) {
      pb.command().addAll(List.of("--debug", debugLog));
    }
    process = pb.start();
    CompletableFuture<String> address = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          synchronized (output) {
            output.add(line);
          }
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            address.complete(m.group(1));
          }
        }
      } catch (IOException e) {
        address.completeExceptionally(e);
      }
      address.completeExceptionally(new IOException("Azurite ended before it listened: " + output()));
    }, "azurite-output");
    reader.setDaemon(true);
    reader.start();
    try {
      url = address.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      close();
      throw new IOException("Azurite (" + bin + ") did not start: " + output(), e);
    }
  }

  /** Starts Azurite. */
  public static AzuriteServer start() throws IOException, InterruptedException {
    return new AzuriteServer();
  }

  private static Path executable() {
    String given = System.getProperty("dimstream.azurite", System.getenv("DIMSTREAM_AZURITE"));
    Path bin = given != null ? Path.of(given)
        : Path.of(System.getProperty("user.home"), ".cache", "dimstream", "azurite", "node_modules", ".bin",
            "azurite-blob");
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException("Azurite is not installed at " + bin + ". Fix: run .ci/run, or "
          + "npm install --prefix ~/.cache/dimstream/azurite azurite@3.35.0 (needs Node.js and npm).");
    }
    return bin;
  }

  private String output() {
    synchronized (output) {
      return String.join("\n", output);
    }
  }

  /** The Blob endpoint of the development account. */
  public String blobEndpoint() {
    return url + "/" + ACCOUNT;
  }

  /** The port the server listens on (on 127.0.0.1). */
  public int port() {
    return java.net.URI.create(url).getPort();
  }

  /** Settings that reach the development account through {@code endpoint} (a proxy of a server) with its key. */
  public static StorageSettings settingsAt(String endpoint) {
    return StorageSettings.defaults().withAzure(AzureSettings.defaults().withAccount(ACCOUNT)
        .withEndpoint(endpoint + "/" + ACCOUNT).withAccountKey(KEY));
  }

  /** A connection string for the development account on this server. */
  public String connectionString() {
    return "DefaultEndpointsProtocol=http;AccountName=" + ACCOUNT + ";AccountKey=" + KEY + ";BlobEndpoint="
        + blobEndpoint() + ";";
  }

  /** Settings that reach this server, as {@code service.storage.azure.connection_string} gives them. */
  public StorageSettings settings() {
    return StorageSettings.defaults().withAzure(AzureSettings.defaults().withConnectionString(connectionString()));
  }

  /** A client of this server for the test's own checks. */
  public BlobServiceClient client() {
    return new BlobServiceClientBuilder().connectionString(connectionString())
        .httpClient(new com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder().build()).buildClient();
  }

  public void createContainer(String name) {
    client().createBlobContainerIfNotExists(name);
  }

  /** The store of {@code az://container/prefix} on this server, the container created if needed. */
  public ObjectStore store(String container, String prefix) {
    createContainer(container);
    return ObjectStores.open(TableLocation.azure(container, prefix), settings());
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
