package io.dimstream.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
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
 * whose retries {@link StoreRetries} decides, as on Azure: after a request whose outcome is unknown, a 412 may be this
 * writer's own object, so the object is read back and compared.
 */
public final class S3Store implements ObjectStore {
  private static final Logger LOG = LoggerFactory.getLogger(S3Store.class);
  /** A ranged read fetches at least this much, so that a Parquet footer and a small file's row groups take one GET. */
  static final int READ_BLOCK = ReadAhead.BLOCK;

  private final S3Clients clients;
  private final TableLocation location;
  private final String bucket;
  /** The table's key prefix with a trailing slash, or empty for a table at the bucket's root. */
  private final String root;
  private final StoreRetries retries;

  S3Store(S3Clients clients, TableLocation location, int maxAttempts) {
    this.clients = clients;
    this.location = location;
    this.bucket = location.bucket();
    this.root = location.prefix().isEmpty() ? "" : location.prefix() + "/";
    this.retries = new StoreRetries(maxAttempts);
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
    ResponseBytes<GetObjectResponse> r = retries.readChecked(describe(key), () -> {
      try {
        return clients.client().getObjectAsBytes(b -> b.bucket(bucket).key(objectKey(key)));
      } catch (NoSuchKeyException e) {
        throw new NoSuchFileException(describe(key));
      } catch (SdkException e) {
        throw failed("read", key, e);
      }
    }, a -> wholeObjectProblem(a.response(), a.asByteArray()));
    return r.asByteArray();
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
  private ReadAhead.Range getRange(String key, long from, long len) throws IOException {
    ResponseBytes<GetObjectResponse> r = retries.readChecked(describe(key), () -> {
      try {
        return clients.client().getObjectAsBytes(b -> b.bucket(bucket).key(objectKey(key))
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
    }, a -> {
      long total = totalLength(a.response().contentRange(), -1);
      long expected = total < 0 ? len : Math.min(len, total - from);
      Long header = a.response().contentLength();
      int got = a.asByteArray().length;
      return got == expected && (header == null || header == got) ? null
          : "a ranged read of " + expected + " bytes at " + from + " returned " + got;
    });
    byte[] bytes = r.asByteArray();
    long total = totalLength(r.response().contentRange(), -1);
    return new ReadAhead.Range(from, bytes, total < 0 ? from + bytes.length : total);
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

  @Override
  public RangeReader openRanged(String key, long knownLength) {
    return ReadAhead.of(this, key, (from, len) -> getRange(key, from, len), knownLength);
  }

  @Override
  public boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException {
    String k = objectKey(key);
    AtomicReference<Exception> last = new AtomicReference<>();
    return retries.putIfAbsent(describe(key), content, () -> {
      try {
        clients.conditional().putObject(b -> b.bucket(bucket).key(k).ifNoneMatch("*"), RequestBody.fromBytes(content));
        return StoreRetries.Answer.CREATED;
      } catch (S3Exception e) {
        last.set(e);
        int status = e.statusCode();
        if (status == 412) {
          return StoreRetries.Answer.EXISTS;
        }
        if (status == 409 || status == 429 || status == 503) {
          LOG.debug("{}: conditional create answered {} ({}); trying again", describe(key), status, errorCode(e));
          return StoreRetries.Answer.TRY_AGAIN;
        }
        if (status >= 500) {
          LOG.warn("{}: conditional create failed with {} ({}); reading back before trying again", describe(key),
              status, errorCode(e));
          return StoreRetries.Answer.UNKNOWN; // the store may have stored the object before failing
        }
        throw failed("create", key, e);
      } catch (SdkClientException e) {
        last.set(e);
        LOG.warn("{}: conditional create got no answer ({}); reading back before trying again", describe(key),
            e.getMessage());
        return StoreRetries.Answer.UNKNOWN; // sent, then no answer (time-out, connection lost): it may have landed
      }
    }, () -> {
      try {
        return Optional.of(read(key));
      } catch (NoSuchFileException e) {
        return Optional.empty();
      }
    }, last::get);
  }

  private static String errorCode(S3Exception e) {
    return e.awsErrorDetails() == null ? "no error code" : e.awsErrorDetails().errorCode();
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
