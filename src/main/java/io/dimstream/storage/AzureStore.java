package io.dimstream.storage;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobDownloadContentResponse;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DownloadRetryOptions;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.models.ParallelTransferOptions;
import com.azure.storage.blob.options.BlobUploadFromFileOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table under a prefix of an Azure Blob Storage container (also an ADLS Gen2 account, through its Blob endpoint),
 * through {@code azure-storage-blob}. Put-if-absent is a Put Blob with {@code If-None-Match: *}: 409 BlobAlreadyExists
 * (or 412) means the key exists. Nothing is ever renamed. Reads are ranged GETs. Throttling (503 ServerBusy, 429) and
 * transient errors (500, 502, 504, time-outs, broken connections) are retried here with exponential backoff and full
 * jitter; a conditional create whose answer was lost is resolved by {@link StoreRetries}, as on S3.
 */
public final class AzureStore implements ObjectStore {
  private static final Logger LOG = LoggerFactory.getLogger(AzureStore.class);
  /** Files larger than this are uploaded in blocks of this size (Put Block, Put Block List). */
  private static final long UPLOAD_BLOCK = 8L << 20;

  private final BlobContainerClient container;
  private final TableLocation location;
  /** The table's key prefix with a trailing slash, or empty for a table at the container's root. */
  private final String root;
  private final Duration timeout;
  private final int maxAttempts;
  private final StoreRetries retries;

  AzureStore(AzureClients clients, TableLocation location, AzureSettings settings) {
    this.container = clients.service().getBlobContainerClient(location.container());
    this.location = location;
    this.root = location.prefix().isEmpty() ? "" : location.prefix() + "/";
    this.timeout = settings.requestTimeout();
    this.maxAttempts = settings.maxAttempts();
    this.retries = new StoreRetries(maxAttempts);
  }

  @Override
  public TableLocation location() {
    return location;
  }

  private BlobClient blob(String key) {
    return container.getBlobClient(root + key);
  }

  /** One request of the store, tried again on throttling and transient errors. */
  @FunctionalInterface
  private interface Request<T> {
    T send();
  }

  private <T> T call(String what, String key, Request<T> request) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return request.send();
      } catch (BlobStorageException e) {
        if (e.getStatusCode() == 404) {
          if (BlobErrorCode.CONTAINER_NOT_FOUND.equals(e.getErrorCode())) {
            throw new NoSuchFileException(describe(key), null, "the container '" + location.container()
                + "' does not exist. Fix: create it (az storage container create --name " + location.container()
                + ")");
          }
          throw new NoSuchFileException(describe(key));
        }
        if (!retryable(e.getStatusCode()) || attempt >= maxAttempts) {
          throw failed(what, key, e);
        }
        LOG.debug("{}: {} answered {} ({}); trying again", describe(key), what, e.getStatusCode(), e.getErrorCode());
      } catch (RuntimeException e) {
        if (!transientFailure(e) || attempt >= maxAttempts) {
          throw failed(what, key, e);
        }
        LOG.debug("{}: {} failed ({}); trying again", describe(key), what, e.toString());
      }
      StoreRetries.backoff(attempt);
    }
  }

  /** Throttling (429, 503 ServerBusy) and server errors that a later attempt may not meet. */
  private static boolean retryable(int status) {
    return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
  }

  /** No answer: a time-out or a broken connection, somewhere in the cause chain. */
  private static boolean transientFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException || t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    ListBlobsOptions options = new ListBlobsOptions().setPrefix(root + prefix).setMaxResultsPerPage(5000)
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    return call("list", prefix, () -> {
      List<ObjectInfo> out = new ArrayList<>();
      for (BlobItem item : container.listBlobs(options, timeout)) {
        if (item.getMetadata() != null && "true".equalsIgnoreCase(item.getMetadata().get("hdi_isfolder"))) {
          continue; // a directory of an account with a hierarchical namespace, not an object
        }
        String key = item.getName().substring(root.length());
        if (startAfter == null || key.compareTo(startAfter) > 0) {
          out.add(new ObjectInfo(key, item.getProperties().getContentLength(),
              item.getProperties().getLastModified().toInstant().toEpochMilli()));
        }
      }
      return out;
    });
  }

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    try {
      BlobProperties p = call("look up", key,
          () -> blob(key).getPropertiesWithResponse(null, timeout, Context.NONE).getValue());
      return Optional.of(new ObjectInfo(key, p.getBlobSize(), p.getLastModified().toInstant().toEpochMilli()));
    } catch (NoSuchFileException e) {
      if (e.getReason() != null) {
        throw e; // no container: not the same as no object
      }
      return Optional.empty();
    }
  }

  @Override
  public byte[] read(String key) throws IOException {
    BlobDownloadContentResponse r = retries.readChecked(describe(key), () -> call("read", key,
        () -> blob(key).downloadContentWithResponse(new DownloadRetryOptions().setMaxRetryRequests(maxAttempts), null,
            null, false, null, Context.NONE)), a -> wholeObjectProblem(a, a.getValue().toBytes()));
    return r.getValue().toBytes();
  }

  /** Why a whole-object answer cannot be trusted, or null: its length and its stored MD5 must match the bytes. */
  private static String wholeObjectProblem(BlobDownloadContentResponse r, byte[] bytes) {
    Long expected = r.getDeserializedHeaders().getContentLength();
    if (expected != null && expected != bytes.length) {
      return "the answer held " + bytes.length + " of " + expected + " bytes";
    }
    byte[] md5 = r.getDeserializedHeaders().getContentMd5();
    if (md5 != null && md5.length > 0 && !Arrays.equals(md5, md5(bytes))) {
      return "the bytes received do not match the object's Content-MD5";
    }
    return null;
  }

  private static byte[] md5(byte[] bytes) {
    try {
      return MessageDigest.getInstance("MD5").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has MD5", e);
    }
  }

  /** Bytes {@code [from, from + len)} of {@code key} (fewer at the object's end), with the object's length. */
  private ReadAhead.Range getRange(String key, long from, long len) throws IOException {
    BlobDownloadContentResponse r = retries.readChecked(describe(key), () -> {
      try {
        return call("read", key, () -> blob(key).downloadContentWithResponse(
            new DownloadRetryOptions().setMaxRetryRequests(maxAttempts), null, new BlobRange(from, len), false, null,
            Context.NONE));
      } catch (IOException e) {
        if (e.getCause() instanceof BlobStorageException b && b.getStatusCode() == 416) {
          throw new EOFException(describe(key) + " has no byte " + from);
        }
        throw e;
      }
    }, a -> {
      long total = totalLength(a.getDeserializedHeaders().getContentRange());
      long expected = total < 0 ? len : Math.min(len, total - from);
      int got = a.getValue().toBytes().length;
      return got == expected ? null : "a ranged read of " + expected + " bytes at " + from + " returned " + got;
    });
    byte[] bytes = r.getValue().toBytes();
    long total = totalLength(r.getDeserializedHeaders().getContentRange());
    return new ReadAhead.Range(from, bytes, total < 0 ? from + bytes.length : total);
  }

  /** The total in a Content-Range answer ({@code bytes 0-1023/4096}), or -1. */
  private static long totalLength(String contentRange) {
    if (contentRange != null) {
      int slash = contentRange.lastIndexOf('/');
      if (slash >= 0 && !contentRange.endsWith("*")) {
        return Long.parseLong(contentRange.substring(slash + 1).trim());
      }
    }
    return -1;
  }

  @Override
  public RangeReader openRanged(String key, long knownLength) {
    return ReadAhead.of(this, key, (from, len) -> getRange(key, from, len), knownLength);
  }

  @Override
  public boolean putIfAbsent(String key, byte[] content, long modifiedMillis) throws IOException {
    BlockBlobSimpleUploadOptions create = new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(content))
        .setContentMd5(md5(content)).setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*"));
    AtomicReference<Exception> last = new AtomicReference<>();
    return retries.putIfAbsent(describe(key), content, () -> {
      try {
        blob(key).getBlockBlobClient().uploadWithResponse(create, timeout, Context.NONE);
        return StoreRetries.Answer.CREATED;
      } catch (BlobStorageException e) {
        last.set(e);
        int status = e.getStatusCode();
        if ((status == 409 && BlobErrorCode.BLOB_ALREADY_EXISTS.equals(e.getErrorCode())) || status == 412) {
          return StoreRetries.Answer.EXISTS;
        }
        if (status == 429 || status == 503) {
          LOG.debug("{}: conditional create answered {} ({}); trying again", describe(key), status, e.getErrorCode());
          return StoreRetries.Answer.TRY_AGAIN;
        }
        if (status == 408 || status >= 500) {
          LOG.warn("{}: conditional create failed with {} ({}); reading back before trying again", describe(key),
              status, e.getErrorCode());
          return StoreRetries.Answer.UNKNOWN; // the store may have stored the object before failing
        }
        if (status == 404) {
          throw new NoSuchFileException(describe(key), null, "the container '" + location.container()
              + "' does not exist. Fix: create it (az storage container create --name " + location.container() + ")");
        }
        throw failed("create", key, e);
      } catch (RuntimeException e) {
        if (!transientFailure(e)) {
          throw failed("create", key, e);
        }
        last.set(e);
        LOG.warn("{}: conditional create got no answer ({}); reading back before trying again", describe(key),
            e.toString());
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

  @Override
  public void put(String key, byte[] content) throws IOException {
    BlockBlobSimpleUploadOptions upload = new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(content))
        .setContentMd5(md5(content));
    call("write", key, () -> blob(key).getBlockBlobClient().uploadWithResponse(upload, timeout, Context.NONE));
  }

  @Override
  public Path stagingFile(String key) throws IOException {
    return Files.createTempFile("dimstream-", ".part");
  }

  @Override
  public void putFile(String key, Path staged) throws IOException {
    try {
      BlobUploadFromFileOptions upload = new BlobUploadFromFileOptions(staged.toString())
          .setParallelTransferOptions(new ParallelTransferOptions().setBlockSizeLong(UPLOAD_BLOCK)
              .setMaxSingleUploadSizeLong(UPLOAD_BLOCK).setMaxConcurrency(2));
      call("upload", key, () -> blob(key).uploadFromFileWithResponse(upload, null, Context.NONE));
    } finally {
      Files.deleteIfExists(staged);
    }
  }

  @Override
  public void delete(String key) throws IOException {
    call("delete", key, () -> blob(key).deleteIfExistsWithResponse(null, null, timeout, Context.NONE));
  }

  private IOException failed(String what, String key, RuntimeException e) {
    String why = e instanceof BlobStorageException b
        ? b.getStatusCode() + " " + b.getErrorCode() + (b.getStatusCode() == 403 ? " (check the account's "
            + "credentials and their permissions on the container)" : "")
        : e.toString();
    return new IOException("Azure Blob Storage could not " + what + " " + describe(key) + ": " + why, e);
  }

  @Override
  public String toString() {
    return location.toString();
  }
}
