package io.dimstream.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A table under a prefix of an S3 (or S3-compatible) bucket, through the AWS SDK v2. Put-if-absent is a conditional
 * create ({@code If-None-Match: *}): 412 means the key exists, 409 (a concurrent conditional write in flight) is
 * tried again. Nothing is ever renamed. Reads are ranged GETs. Throttling (503 SlowDown, 429) and transient errors
 * are retried with exponential backoff and jitter by the SDK's standard retry strategy, except for put-if-absent,
 * whose retries are decided here: after a request whose outcome is unknown, a 412 may be this writer's own object,
 * so the object is read back and compared.
 */
public final class S3Store implements ObjectStore {
  private static final Logger LOG = LoggerFactory.getLogger(S3Store.class);
  /** A ranged read fetches at least this much, so that a Parquet footer and a small file's row groups take one GET. */
  static final int READ_BLOCK = 1 << 20;

  private final S3Clients clients;
  private final TableLocation location;
  private final String bucket;
  /** The table's key prefix with a trailing slash, or empty for a table at the bucket's root. */
  private final String root;
  private final int maxAttempts;

  S3Store(S3Clients clients, TableLocation location, int maxAttempts) {
    this.clients = clients;
    this.location = location;
    this.bucket = location.bucket();
    this.root = location.prefix().isEmpty() ? "" : location.prefix() + "/";
    this.maxAttempts = maxAttempts;
  }

  @Override
  public TableLocation location() {
    return location;
  }

  private String objectKey(String key) {
    return root + key;
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    List<ObjectInfo> out = new ArrayList<>();
    ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(objectKey(prefix));
    if (startAfter != null) {
      req.startAfter(objectKey(startAfter));
    }
    try {
      String token = null;
      do {
        ListObjectsV2Response page = clients.client().listObjectsV2(
            (token == null ? req : req.continuationToken(token)).build());
        for (S3Object o : page.contents()) {
          out.add(new ObjectInfo(o.key().substring(root.length()), o.size(), o.lastModified().toEpochMilli()));
        }
        token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
      } while (token != null);
    } catch (SdkException e) {
      throw failed("list", prefix, e);
    }
    return out;
  }

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    try {
      HeadObjectResponse r = clients.client().headObject(b -> b.bucket(bucket).key(objectKey(key)));
      return Optional.of(new ObjectInfo(key, r.contentLength(), r.lastModified().toEpochMilli()));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return Optional.empty();
      }
      throw failed("look up", key, e);
    } catch (SdkException e) {
      throw failed("look up", key, e);
    }
  }

  @Override
  public byte[] read(String key) throws IOException {
    for (int attempt = 1; ; attempt++) {
      ResponseBytes<GetObjectResponse> r;
      try {
        r = clients.client().getObjectAsBytes(b -> b.bucket(bucket).key(objectKey(key)));
      } catch (NoSuchKeyException e) {
        throw new NoSuchFileException(describe(key));
      } catch (SdkException e) {
        throw failed("read", key, e);
      }
      byte[] bytes = r.asByteArray();
      String problem = wholeObjectProblem(r.response(), bytes);
      if (problem == null) {
        return bytes;
      }
      if (attempt >= maxAttempts) {
        throw new IOException(describe(key) + ": " + problem + " in each of " + maxAttempts + " attempts");
      }
      LOG.warn("{}: {}; reading it again", describe(key), problem);
      backoff(attempt);
    }
  }

  /**
   * Why a whole-object answer cannot be trusted (a body cut short by a broken connection), or null: the length must
   * match the Content-Length, and the bytes the MD5 a single-part upload's ETag is.
   */
  private static String wholeObjectProblem(GetObjectResponse response, byte[] bytes) {
    Long expected = response.contentLength();
    if (expected != null && expected != bytes.length) {
      return "the answer held " + bytes.length + " of " + expected + " bytes";
    }
    String etag = response.eTag() == null ? "" : response.eTag().replace("\"", "");
    if (etag.length() == 32 && etag.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      try {
        byte[] md5 = java.security.MessageDigest.getInstance("MD5").digest(bytes);
        if (!java.util.HexFormat.of().formatHex(md5).equalsIgnoreCase(etag)) {
          return "the bytes received do not match the object's MD5 (ETag " + etag + ")";
        }
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JVM has MD5", e);
      }
    }
    return null;
  }

  /**
   * Bytes {@code [from, from + len)} of {@code key} (fewer at the object's end), and the object's length from the
   * Content-Range answer; an answer shorter than its Content-Range says is read again.
   */
  private Range getRange(String key, long from, long len) throws IOException {
    for (int attempt = 1; ; attempt++) {
      ResponseBytes<GetObjectResponse> r;
      try {
        r = clients.client().getObjectAsBytes(b -> b.bucket(bucket).key(objectKey(key))
            .range("bytes=" + from + "-" + (from + len - 1)));
      } catch (NoSuchKeyException e) {
        throw new NoSuchFileException(describe(key));
      } catch (S3Exception e) {
        if (e.statusCode() == 416) {
          throw new EOFException(describe(key) + " has no byte " + from);
        }
        throw failed("read", key, e);
      } catch (SdkException e) {
        throw failed("read", key, e);
      }
      byte[] bytes = r.asByteArray();
      long total = totalLength(r.response().contentRange(), -1);
      long expected = total < 0 ? len : Math.min(len, total - from);
      Long header = r.response().contentLength();
      if (bytes.length == expected && (header == null || header == bytes.length)) {
        return new Range(from, bytes, total < 0 ? from + bytes.length : total);
      }
      if (attempt >= maxAttempts) {
        throw new IOException(describe(key) + ": a ranged read of " + expected + " bytes at " + from + " returned "
            + bytes.length + " in each of " + maxAttempts + " attempts");
      }
      LOG.warn("{}: a ranged read of {} bytes at {} returned {}; reading it again", describe(key), expected, from,
          bytes.length);
      backoff(attempt);
    }
  }

  private static long totalLength(String contentRange, long fallback) {
    if (contentRange != null) {
      int slash = contentRange.lastIndexOf('/');
      if (slash >= 0 && !contentRange.endsWith("*")) {
        return Long.parseLong(contentRange.substring(slash + 1).trim());
      }
    }
    return fallback;
  }

  private record Range(long start, byte[] bytes, long objectLength) {
    boolean covers(long pos, int len) {
      return pos >= start && pos + len <= start + bytes.length;
    }
  }

  @Override
  public RangeReader openRanged(String key, long knownLength) {
    return new RangeReader() {
      private long length = knownLength;
      private Range block;

      @Override
      public long length() throws IOException {
        if (length < 0) {
          length = head(key).orElseThrow(() -> new NoSuchFileException(describe(key))).size();
        }
        return length;
      }

      @Override
      public void readFully(long position, byte[] buf, int off, int len) throws IOException {
        if (len == 0) {
          return;
        }
        if (block != null && block.covers(position, len)) {
          System.arraycopy(block.bytes, (int) (position - block.start), buf, off, len);
          return;
        }
        if (len >= READ_BLOCK) {
          Range r = getRange(key, position, len);
          if (r.bytes.length < len) {
            throw new EOFException(describe(key) + " ends before byte " + (position + len));
          }
          System.arraycopy(r.bytes, 0, buf, off, len);
          return;
        }
        // reads near the end (a Parquet footer) take the last block, so the footer and its length come in one GET
        long from = position;
        if (length >= 0 && position + READ_BLOCK > length) {
          from = Math.max(0, Math.min(position, length - READ_BLOCK));
        }
        block = getRange(key, from, READ_BLOCK);
        length = block.objectLength;
        if (!block.covers(position, len)) {
          throw new EOFException(describe(key) + " ends at " + length + ", before byte " + (position + len));
        }
        System.arraycopy(block.bytes, (int) (position - block.start), buf, off, len);
      }

      @Override
      public void close() {
        block = null;
      }
    };
  }

  @Override
  public boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException {
    String k = objectKey(key);
    boolean unknown = false;
    SdkException last = null;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        clients.conditional().putObject(b -> b.bucket(bucket).key(k).ifNoneMatch("*"), RequestBody.fromBytes(content));
        return true;
      } catch (S3Exception e) {
        last = e;
        int status = e.statusCode();
        if (status == 412 && !unknown) {
          return false;
        }
        if (status == 412 || status == 409 || status == 429 || status == 503) {
          LOG.debug("{}: conditional create answered {} ({}); trying again", describe(key), status, errorCode(e));
        } else if (status >= 500) {
          unknown = true; // the store may have stored the object before failing
          LOG.warn("{}: conditional create failed with {} ({}); reading back before trying again", describe(key),
              status, errorCode(e));
        } else {
          throw failed("create", key, e);
        }
      } catch (SdkClientException e) {
        last = e;
        unknown = true; // sent, then no answer (time-out, connection lost): it may have landed
        LOG.warn("{}: conditional create got no answer ({}); reading back before trying again", describe(key),
            e.getMessage());
      }
      if (unknown) {
        ReadBack found = readBack(key, content);
        if (found != ReadBack.ABSENT && found != ReadBack.FAILED) {
          LOG.info("{}: read back after an unknown outcome: the object is {}", describe(key),
              found == ReadBack.OURS ? "ours" : "another writer's");
          return found == ReadBack.OURS;
        }
      }
      backoff(attempt);
    }
    if (unknown) {
      throw new PutOutcomeUnknownException(describe(key) + ": the conditional create failed " + maxAttempts
          + " times without a definite answer (" + last.getMessage() + ")", last);
    }
    throw failed("create", key, last);
  }

  /** What a read-back after an unknown outcome found. */
  private enum ReadBack { OURS, THEIRS, ABSENT, FAILED }

  /**
   * Whether the object is there and holds exactly {@code content} (this writer's), another writer's bytes, nothing;
   * or the read failed too, so the outcome stays unknown.
   */
  private ReadBack readBack(String key, byte[] content) {
    try {
      return Arrays.equals(read(key), content) ? ReadBack.OURS : ReadBack.THEIRS;
    } catch (NoSuchFileException e) {
      return ReadBack.ABSENT;
    } catch (IOException e) {
      LOG.warn("{}: the read-back failed too ({}); the outcome is still unknown", describe(key), e.getMessage());
      return ReadBack.FAILED;
    }
  }

  private static String errorCode(S3Exception e) {
    return e.awsErrorDetails() == null ? "no error code" : e.awsErrorDetails().errorCode();
  }

  /** Full jitter: a random wait up to 50 ms doubled per attempt, at most 5 s. */
  private static void backoff(int attempt) throws IOException {
    long cap = Math.min(5_000, 50L << Math.min(attempt, 10));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(cap + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while waiting to retry");
    }
  }

  @Override
  public void put(String key, byte[] content) throws IOException {
    try {
      clients.client().putObject(b -> b.bucket(bucket).key(objectKey(key)), RequestBody.fromBytes(content));
    } catch (SdkException e) {
      throw failed("write", key, e);
    }
  }

  @Override
  public Path stagingFile(String key) throws IOException {
    return Files.createTempFile("dimstream-", ".part");
  }

  @Override
  public void putFile(String key, Path staged) throws IOException {
    try {
      clients.client().putObject(b -> b.bucket(bucket).key(objectKey(key)), RequestBody.fromFile(staged));
    } catch (SdkException e) {
      throw failed("upload", key, e);
    } finally {
      Files.deleteIfExists(staged);
    }
  }

  @Override
  public void delete(String key) throws IOException {
    try {
      clients.client().deleteObject(b -> b.bucket(bucket).key(objectKey(key)));
    } catch (SdkException e) {
      throw failed("delete", key, e);
    }
  }

  private IOException failed(String what, String key, SdkException e) {
    return new IOException("S3 could not " + what + " " + describe(key) + ": " + e.getMessage(), e);
  }

  @Override
  public String toString() {
    return location.toString();
  }
}
