package io.dimstream.chaos;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * The table's object store in its own JVM: s3proxy serving the S3 REST API over files under a directory, with
 * conditional writes checked in its blob store. Usage: {@code StoreServer <dir> <host> <port> <bucket>}; prints
 * {@code ready} once it serves. Runs until killed.
 */
public final class StoreServer {
  private StoreServer() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]).toAbsolutePath();
    Files.createDirectories(dir);
    FilesystemNio2BlobStore blobs = new FilesystemNio2BlobStore(dir.toString());
    if (!blobs.containerExists(args[3])) {
      blobs.createContainer(args[3], CreateContainerOptions.NONE);
    }
    S3Proxy proxy = S3Proxy.builder().blobStore(blobs).endpoint(URI.create("http://" + args[1] + ":" + args[2]))
        .awsAuthentication(AuthenticationType.NONE, null, null).build();
    proxy.start();
    while (!proxy.getState().equals("STARTED")) {
      Thread.sleep(20);
    }
    System.out.println("ready");
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
