package io.dimstream.storage;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * moto's S3 server (Python moto 5.2, {@code moto_server}), an S3 implementation independent of the AWS SDK and of
 * s3proxy, run as a child process on 127.0.0.1 and stopped by {@link #close}. {@code .ci/run} installs moto where it
 * is missing; a machine without it fails here with the command that installs it.
 */
public final class MotoServer implements AutoCloseable {
  static {
    // the SDK's default credential chain reads these; moto accepts any signature
    System.setProperty("aws.accessKeyId", "dimstream-test");
    System.setProperty("aws.secretAccessKey", "dimstream-test-secret");
  }

  private final Process process;
  private final int port;
  private final Path log;

  private MotoServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts moto_server on a free port and waits until it answers. */
  public static MotoServer start() throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path log = Files.createTempFile("moto-server-", ".log");
    ProcessBuilder pb = new ProcessBuilder(command(), "-H", "127.0.0.1", "-p", Integer.toString(port))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("moto_server (Python moto 5.2) is not installed: " + e.getMessage()
          + ". Fix: pip install 'moto[server]==5.2.1' (as .ci/run does)", e);
    }
    MotoServer server = new MotoServer(p, port, log);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException("moto_server exited with " + p.exitValue() + ": " + Files.readString(log));
      }
      try (Socket ignored = new Socket("127.0.0.1", port)) {
        return server;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    server.close();
    throw new IllegalStateException("moto_server did not listen on port " + port + " within 60 s: "
        + Files.readString(log));
  }

  private static String command() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "moto_server");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return "moto_server";
  }

  public int port() {
    return port;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Storage settings that reach {@code endpoint} (this server, or a proxy in front of it). */
  public static StorageSettings settings(String endpoint) {
    return StorageSettings.defaults().withEndpoint(endpoint).withRegion("us-east-1");
  }

  /** Creates {@code bucket} (S3 bucket names have at least three characters). */
  public void createBucket(String bucket) {
    try (S3Client c = S3Client.builder().endpointOverride(URI.create(endpoint())).forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b"))).build()) {
      c.createBucket(b -> b.bucket(bucket));
    }
  }

  /** The store of {@code s3://bucket/prefix} through {@code endpoint}, the bucket created on this server. */
  public ObjectStore store(String endpoint, String bucket, String prefix) {
    return ObjectStores.open(TableLocation.s3(bucket, prefix), settings(endpoint));
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a temporary log file
    }
  }
}
