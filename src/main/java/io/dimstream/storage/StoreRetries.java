package io.dimstream.storage;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the object stores retry what their SDKs cannot decide alone: a conditional create whose outcome was lost
 * (read back, compared, tried again), and an answer whose body does not match what its headers promise (read
 * again). Every wait is exponential backoff with full jitter. One policy for S3 and Azure, so both stores resolve
 * an unknown commit by the same rule.
 */
final class StoreRetries {
  private static final Logger LOG = LoggerFactory.getLogger(StoreRetries.class);

  private final int maxAttempts;

  StoreRetries(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
  }

  int maxAttempts() {
    return maxAttempts;
  }

  /** Full jitter: a random wait up to 50 ms doubled per attempt, at most 5 s. */
  static void backoff(int attempt) throws IOException {
    long cap = Math.min(5_000, 50L << Math.min(attempt, 10));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(cap + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting to retry");
    }
  }

  /** What one conditional-create request of a store answered. */
  enum Answer {
    /** The object was created. */
    CREATED,
    /** The key exists (S3 412, Azure 409 BlobAlreadyExists or 412). */
    EXISTS,
    /** Not created, and nothing was stored: throttled, or a concurrent conditional write in flight. */
    TRY_AGAIN,
    /** Sent, then an error or no answer: the store may have stored the object. */
    UNKNOWN
  }

  /** One conditional create; a definite failure (refused, bad request) is thrown as an {@link IOException}. */
  interface CreateRequest {
    Answer send() throws IOException;
  }

  /** The whole object at a key, or empty when there is none. */
  interface ReadBack {
    Optional<byte[]> read() throws IOException;
  }

  /**
   * Creates an object only if its key is absent, trying again until the answer is definite: after an
   * {@link Answer#UNKNOWN}, the object is read back; when it is there, the create succeeded exactly if its bytes are
   * {@code content} (another writer's object means the key was taken).
   *
   * @param last the cause of the latest failed attempt, for the message when every attempt failed
   * @throws PutOutcomeUnknownException when no attempt gave a definite answer and some outcome stayed unknown
   */
  boolean putIfAbsent(String object, byte[] content, CreateRequest request, ReadBack readBack,
      java.util.function.Supplier<Exception> last) throws IOException {
    boolean unknown = false;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      Answer answer = request.send();
      if (answer == Answer.CREATED) {
        return true;
      }
      if (answer == Answer.EXISTS && !unknown) {
        return false;
      }
      unknown |= answer == Answer.UNKNOWN;
      if (unknown) {
        Optional<byte[]> there;
        try {
          there = readBack.read();
        } catch (IOException e) {
          LOG.warn("{}: the read-back failed too ({}); the outcome is still unknown", object, e.getMessage());
          there = Optional.empty();
        }
        if (there.isPresent()) {
          boolean ours = Arrays.equals(there.get(), content);
          LOG.info("{}: read back after an unknown outcome: the object is {}", object,
              ours ? "ours" : "another writer's");
          return ours;
        }
      }
      backoff(attempt);
    }
    Exception cause = last.get();
    String why = cause == null ? "" : " (" + cause.getMessage() + ")";
    if (unknown) {
      throw new PutOutcomeUnknownException(object + ": the conditional create failed " + maxAttempts
          + " times without a definite answer" + why, cause);
    }
    throw new IOException(object + ": the conditional create failed " + maxAttempts + " times" + why, cause);
  }

  /** One read; a failure is thrown as an {@link IOException}. */
  interface Read<T> {
    T get() throws IOException;
  }

  /**
   * Reads until an answer passes {@code problem} (which returns null for an answer to trust, else why not, such as a
   * body cut short by a broken connection).
   */
  <T> T readChecked(String object, Read<T> read, Function<T, String> problem) throws IOException {
    for (int attempt = 1; ; attempt++) {
      T answer = read.get();
      String why = problem.apply(answer);
      if (why == null) {
        return answer;
      }
      if (attempt >= maxAttempts) {
        throw new IOException(object + ": " + why + " in each of " + maxAttempts + " attempts");
      }
      LOG.warn("{}: {}; reading it again", object, why);
      backoff(attempt);
    }
  }
}
