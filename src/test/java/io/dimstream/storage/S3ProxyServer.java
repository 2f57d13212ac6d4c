package io.dimstream.storage;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.HttpResponse;
import org.gaul.s3proxy.blobstore.HttpResponseException;
import org.gaul.s3proxy.blobstore.domain.Blob;
import org.gaul.s3proxy.blobstore.domain.BlobMetadata;
import org.gaul.s3proxy.blobstore.domain.PageSet;
import org.gaul.s3proxy.blobstore.domain.StorageMetadata;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.blobstore.options.GetOptions;
import org.gaul.s3proxy.blobstore.options.ListContainerOptions;
import org.gaul.s3proxy.blobstore.options.PutOptions;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

/**
 * A real S3 server in the test JVM (s3proxy: HTTP, the S3 REST API, conditional writes checked atomically in its
 * blob store) on 127.0.0.1, with faults the tests switch on by key: a refused or throttled request, a write stored
 * and then answered with a 500 or answered late, a download broken half-way. It counts the requests it served by
 * kind. The SDK signs with throw-away credentials that the server does not check.
 */
public final class S3ProxyServer implements AutoCloseable {
  static {
    System.setProperty("aws.accessKeyId", "dimstream-test");
    System.setProperty("aws.secretAccessKey", "dimstream-test-secret");
  }

  public final Faults faults;
  private final S3Proxy proxy;

  private S3ProxyServer(BlobStore backend) throws Exception {
    this(backend, false);
  }

  private S3ProxyServer(BlobStore backend, boolean ignoreUnknownHeaders) throws Exception {
    this.faults = new Faults(backend);
    this.proxy = S3Proxy.builder().blobStore(faults).endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.NONE, null, null).ignoreUnknownHeaders(ignoreUnknownHeaders).build();
    proxy.start();
    long deadline = System.currentTimeMillis() + 10_000;
    while (!proxy.getState().equals("STARTED") && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
  }

  /** A server that keeps its objects in memory. */
  public static S3ProxyServer inMemory() throws Exception {
    return new S3ProxyServer(new TransientNio2BlobStore());
  }

  /**
   * A server that keeps its objects in memory and ignores the {@code x-amz-} headers it does not implement instead of
   * answering 501: Trino's S3 file system asks every listing for the objects' restore status
   * ({@code x-amz-optional-object-attributes}), which AWS S3 answers and s3proxy does not.
   */
  public static S3ProxyServer inMemoryIgnoringUnknownHeaders() throws Exception {
    return new S3ProxyServer(new TransientNio2BlobStore(), true);
  }

  /** A server that keeps its objects as files under {@code dir} (one directory per bucket). */
  public static S3ProxyServer onDisk(java.nio.file.Path dir) throws Exception {
    return new S3ProxyServer(new FilesystemNio2BlobStore(dir.toString()));
  }

  public String endpoint() {
    return "http://127.0.0.1:" + proxy.getPort();
  }

  /** Storage settings that reach this server (path-style, since the endpoint is custom). */
  public StorageSettings settings() {
    return StorageSettings.defaults().withEndpoint(endpoint()).withRegion("us-east-1");
  }

  public void createBucket(String bucket) {
    faults.delegate().createContainer(bucket, CreateContainerOptions.NONE);
  }

  /** The store of {@code s3://bucket/prefix} on this server, the bucket created if needed. */
  public ObjectStore store(String bucket, String prefix) {
    if (!faults.delegate().containerExists(bucket)) {
      createBucket(bucket);
    }
    return ObjectStores.open(TableLocation.s3(bucket, prefix), settings());
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
  }

  /** The blob store behind the server, with the faults and request counts. */
  public static final class Faults extends ForwardingBlobStore {
    private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
    private volatile Rule putRule;
    private volatile Rule getRule;

    Faults(BlobStore delegate) {
      super(delegate);
    }

    /** What to do to the next {@code count} requests on keys {@code keys} matches. */
    private record Rule(Predicate<String> keys, AtomicInteger left, Fault fault) {}

    public enum Fault {
      /** 403 AccessDenied, nothing stored. */
      REFUSE,
      /** 503 SlowDown, nothing stored. */
      THROTTLE,
      /** Stored, then answered with a 500: the writer cannot know it landed. */
      STORE_THEN_FAIL,
      /** Stored, then answered only after {@link #STALL_MILLIS}: the writer times out first. */
      STORE_THEN_STALL,
      /** The download breaks after half of the bytes. */
      BREAK_DOWNLOAD
    }

    public static final long STALL_MILLIS = 3_000;

    public void onPut(Predicate<String> keys, int count, Fault fault) {
      putRule = new Rule(keys, new AtomicInteger(count), fault);
    }

    public void onGet(Predicate<String> keys, int count, Fault fault) {
      getRule = new Rule(keys, new AtomicInteger(count), fault);
    }

    public void clear() {
      putRule = null;
      getRule = null;
    }

    /** Requests served so far of a kind (PUT, GET, HEAD, LIST, DELETE), faults included. */
    public long requests(String kind) {
      AtomicLong n = requests.get(kind);
      return n == null ? 0 : n.get();
    }

    public void resetCounts() {
      requests.clear();
      spans.clear();
    }

    private volatile long latencyMillis;

    /** Every request waits this long before it is served, as a remote store's round trip would. */
    public void latency(long millis) {
      latencyMillis = millis;
    }

    /** [start, end) in nanos of each request served since {@link #resetCounts}. */
    private final java.util.List<long[]> spans = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    /**
     * The longest chain of requests served since {@link #resetCounts} of which each started only after the one
     * before it had ended: the round trips a client waited for one after the other (requests sent in parallel
     * overlap, and count once). Meaningful with an added {@link #latency}, which makes each request last.
     */
    public int sequentialRequests() {
      java.util.List<long[]> sorted;
      synchronized (spans) {
        sorted = new java.util.ArrayList<>(spans);
      }
      sorted.sort(java.util.Comparator.comparingLong(s -> s[1]));
      int chain = 0;
      long end = Long.MIN_VALUE;
      for (long[] s : sorted) {
        if (s[0] >= end) {
          chain++;
          end = s[1];
        }
      }
      return chain;
    }

    private void span(long start) {
      spans.add(new long[] {start, System.nanoTime()});
    }

    private long count(String kind) {
      long start = System.nanoTime();
      requests.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
      if (latencyMillis > 0) {
        try {
          Thread.sleep(latencyMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return start;
    }

    private static Fault take(Rule rule, String key) {
      if (rule != null && rule.keys.test(key) && rule.left.getAndDecrement() > 0) {
        return rule.fault;
      }
      return null;
    }

    private static void drain(Blob blob) {
      try (InputStream in = blob.getPayload()) {
        in.transferTo(java.io.OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private static HttpResponseException status(int code) {
      return new HttpResponseException(new HttpResponse(code));
    }

    @Override
    public String putBlob(String container, Blob blob, PutOptions options) {
      long start = count("PUT");
      try {
        return faultyPut(container, blob, options);
      } finally {
        span(start);
      }
    }

    private String faultyPut(String container, Blob blob, PutOptions options) {
      String key = blob.getMetadata().name();
      Fault f = take(putRule, key);
      if (f == Fault.REFUSE || f == Fault.THROTTLE) {
        drain(blob); // as S3 does: the answer comes after the body, not in the middle of sending it
      }
      if (f == Fault.REFUSE) {
        throw status(403);
      }
      if (f == Fault.THROTTLE) {
        throw status(503);
      }
      String etag = super.putBlob(container, blob, options);
      if (f == Fault.STORE_THEN_FAIL) {
        throw status(500);
      }
      if (f == Fault.STORE_THEN_STALL) {
        try {
          Thread.sleep(STALL_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return etag;
    }

    @Override
    public Blob getBlob(String container, String key, GetOptions options) {
      long start = count("GET");
      try {
        return faultyGet(container, key, options);
      } finally {
        span(start);
      }
    }

    private Blob faultyGet(String container, String key, GetOptions options) {
      Fault f = take(getRule, key);
      if (f == Fault.THROTTLE) {
        throw status(503);
      }
      Blob blob = super.getBlob(container, key, options);
      if (f == Fault.BREAK_DOWNLOAD && blob != null) {
        Long size = blob.getMetadata().contentMetadata().contentLength();
        long length = size == null ? 2 : size;
        return blob.toBuilder().payload(new BreakingStream(blob.getPayload(), Math.max(1, length / 2))).build();
      }
      return blob;
    }

    @Override
    public BlobMetadata blobMetadata(String container, String key) {
      long start = count("HEAD");
      try {
        return super.blobMetadata(container, key);
      } finally {
        span(start);
      }
    }

    @Override
    public PageSet<? extends StorageMetadata> list(String container, ListContainerOptions options) {
      long start = count("LIST");
      try {
        return super.list(container, options);
      } finally {
        span(start);
      }
    }

    @Override
    public void removeBlob(String container, String key) {
      long start = count("DELETE");
      try {
        super.removeBlob(container, key);
      } finally {
        span(start);
      }
    }
  }

  /** Gives {@code limit} bytes, then fails as a connection reset would. */
  private static final class BreakingStream extends FilterInputStream {
    private long left;

    BreakingStream(InputStream in, long limit) {
      super(in);
      this.left = limit;
    }

    @Override
    public int read() throws IOException {
      if (left-- <= 0) {
        throw new IOException("connection reset (injected)");
      }
      return super.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        throw new IOException("connection reset (injected)");
      }
      int n = super.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }
  }
}
