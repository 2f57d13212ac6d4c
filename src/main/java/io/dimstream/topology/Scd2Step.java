package io.dimstream.topology;

import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.change.RejectReason;
import io.dimstream.expr.ExpressionException;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.history.ApplyResult;
import io.dimstream.history.HistoryStore;
import io.dimstream.history.IncrementalHistory;
import io.dimstream.model.ChangeEvent;
import io.dimstream.spec.DimensionSpec;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules from a change record to version changes or a dead letter, shared by the topology's processors and by
 * backfill so both reject the same records with the same reason and detail. Kafka-free: the topology decodes
 * before it repartitions by key and applies after, so the two halves are separate calls.
 */
public final class Scd2Step {
  private static final Logger LOG = LoggerFactory.getLogger(Scd2Step.class);

  private final ChangeDecoder decoder;
  private final SpecExpressions expressions;
  private final IncrementalHistory history;
  private final Predicate<RuntimeException> propagate;

  /**
   * @param propagate failures of {@link #apply} that are not the record's fault and must stop the caller (the
   *     topology's store and client errors); every other failure sends the record to the DLQ as
   *     {@value RejectReason#PROCESSING_ERROR}
   */
  public Scd2Step(DimensionSpec spec, ChangeDecoder decoder, Predicate<RuntimeException> propagate) {
    this(spec, SpecExpressions.compile(spec), decoder, propagate);
  }

  /** @param expressions the spec's expressions, compiled once at start and shared by every task */
  public Scd2Step(DimensionSpec spec, SpecExpressions expressions, ChangeDecoder decoder,
      Predicate<RuntimeException> propagate) {
    this.decoder = decoder;
    this.expressions = expressions;
    this.history = new IncrementalHistory(spec.trackedMask(), spec.latenessHorizon(), spec.history(),
        expressions.derivation());
    this.propagate = Objects.requireNonNull(propagate, "propagate");
  }

  /** The outcome of applying one event: its version changes, or a rejection for the DLQ. */
  public sealed interface Outcome permits Applied, Rejected {}

  /** The event was applied; {@code result.changes()} may be empty (a duplicate or a no-change event). */
  public record Applied(ApplyResult.Applied result) implements Outcome {}

  /** The record goes to the DLQ unchanged, with a {@link RejectReason} code and a sentence saying why. */
  public record Rejected(String reason, String detail) implements Outcome {}

  /** The engine, e.g. for pruning the event store past the lateness horizon. */
  public IncrementalHistory history() {
    return history;
  }

  /**
   * Decodes one source record; a decoder that fails (a bug, not bad input) gives a rejection with reason
   * {@value RejectReason#PROCESSING_ERROR} instead of an exception, and an error log line with the stack trace.
   *
   * @param where the record's position for the log (topic/partition@offset, or file and line)
   */
  public Decoded decode(byte[] key, byte[] value, long timestamp, Supplier<String> where) {
    try {
      return decoder.decode(key, value, timestamp);
    } catch (io.dimstream.change.DecoderClosedException e) {
      // the record waited for its schema while the service stopped: not its fault, so never a dead letter
      throw new ThreadStoppingException(e.getMessage(), e);
    } catch (RuntimeException e) {
      // a decoder bug must not stop the dimension; the record still reaches the DLQ with a reason
      LOG.error("The decoder failed on the record at {}", where.get(), e);
      return new Decoded.Rejected(RejectReason.PROCESSING_ERROR, "the decoder failed: " + e);
    }
  }

  /**
   * Applies one event to its key's history in {@code store}. The engine computes before it writes, so a rejected
   * event leaves the store unchanged.
   *
   * @param where the record's position for the log line of a processing failure
   * @throws RuntimeException the failures {@code propagate} selects
   */
  public Outcome apply(HistoryStore store, ChangeEvent decoded, Supplier<String> where) {
    ApplyResult result;
    try {
      Optional<ChangeEvent> admitted = expressions.admit(decoded);
      if (admitted.isEmpty()) {
        return new Applied(new ApplyResult.Applied(List.of(), false)); // skip_when: as if never sent
      }
      result = history.apply(store, admitted.get());
    } catch (ExpressionException e) {
      // Bad input, not a bug: thrown before any write (conditions run first, the engine derives before it stores),
      // so nothing changed; the caller logs the rejection with the record's position.
      String detail = e.sequence().equals(decoded.sequence()) ? e.getMessage()
          : "this late event (sequence " + decoded.sequence() + ") is not applied, because re-deriving a later stored"
              + " event with it fails: " + e.getMessage();
      return new Rejected(RejectReason.EXPRESSION_ERROR, detail);
    } catch (RuntimeException e) {
      if (propagate.test(e)) {
        throw e;
      }
      // A bug must not stop the dimension: nothing was stored, the record goes to the DLQ (and can be replayed
      // from there once fixed) and processing continues.
      LOG.error("Processing failed for the record at {}; sent to the DLQ as {}", where.get(),
          RejectReason.PROCESSING_ERROR, e);
      return new Rejected(RejectReason.PROCESSING_ERROR, "processing failed: " + e);
    }
    if (result instanceof ApplyResult.Applied applied) {
      return new Applied(applied);
    }
    ApplyResult.TooLate late = (ApplyResult.TooLate) result;
    return tooLate(decoded, late.newest(), late.horizon());
  }

  /**
   * The rejection of an event older than its key's newest sequence minus the lateness horizon; shared with the
   * batch backfill so both dead-letter it with the same detail.
   *
   * @param newest the first sequence part of the key's newest event when this one arrived
   */
  public static Rejected tooLate(ChangeEvent event, long newest, long horizon) {
    return new Rejected(RejectReason.BEYOND_LATENESS_HORIZON, "event of key " + event.key() + " at sequence "
        + event.sequence() + " is older than the key's newest (" + newest + ") minus the lateness horizon ("
        + horizon + "); raise lateness_horizon to accept it");
  }
}
