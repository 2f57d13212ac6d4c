package io.dimstream.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.change.JsonChangeDecoder;
import io.dimstream.change.RejectReason;
import io.dimstream.expr.ExpressionException;
import io.dimstream.expr.SpecExpressions;
import io.dimstream.history.SnapshotDiff;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.table.EventArchive;
import io.dimstream.table.Snapshot;
import io.dimstream.topology.EventStoreRecords;
import io.dimstream.spec.StateLayouts;
import io.dimstream.types.Column;
import io.dimstream.types.ColumnValues;
import io.dimstream.table.Operation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import io.dimstream.table.StateMarkers;
import java.util.Optional;

/**
 * Applies one full snapshot of the source (JSON rows) to an existing table in one {@code MERGE} commit: changed rows
 * become versions at their sequence, keys missing from the snapshot are closed at the snapshot's sequence. All or
 * nothing: a row that cannot be decoded, or a snapshot not newer than the table's data, commits nothing.
 */
public final class SnapshotApply {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DimensionSpec spec;
  private final ChangeDecoder decoder;
  private final SpecExpressions expressions;

  public SnapshotApply(DimensionSpec spec) {
    if (spec.sequence().size() != 1) {
      throw BatchErrors.snapshotCompositeSequence(spec);
    }
    this.spec = spec;
    this.decoder = new JsonChangeDecoder(spec); // a snapshot is plain rows, whatever the changes topic's format
    this.expressions = SpecExpressions.compile(spec);
  }

  /** What a snapshot did. */
  public record Result(long rows, long closed, CommitResult commit) {}

  /**
   * @param rows  the snapshot's rows, one JSON object each; a row without the sequence column gets {@code at}
   * @param at    the snapshot's sequence as the spec writes it (ISO-8601 timestamp, date, or number)
   * @throws BatchException when a row is rejected (naming the line and reason), when {@code at} cannot be read
   *     as the sequence, or when the table holds data at or after the snapshot's sequence
   */
  public Result apply(DeltaTable table, Iterator<Backfill.Input> rows, String source, String at) {
    Column seqColumn = spec.sequenceColumns().get(0);
    JsonNode atNode = atNode(at);
    Sequence atSeq;
    try {
      atSeq = Sequence.of(ColumnValues.sequenceLong(ColumnValues.fromJson(atNode, seqColumn.type()),
          seqColumn.type()));
    } catch (RuntimeException e) {
      throw BatchErrors.snapshotBadAt(at, seqColumn, e.getMessage());
    }
    table.evolve(spec); // refuses a table of another key, sequence or history mode
    Snapshot snap = table.latest();
    Map<BusinessKey, Version> latest = new HashMap<>();
    Sequence newest = null;
    try (java.util.stream.Stream<Version> versions = snap.scan()) {
      for (Iterator<Version> it = versions.iterator(); it.hasNext(); ) {
        Version v = it.next();
        Sequence end = v.validTo() == null ? v.validFrom() : v.validTo();
        newest = newest == null || end.isAfter(newest) ? end : newest;
        if (v.isCurrent() || spec.history().isScd1()) {
          latest.put(v.key(), v);
        }
      }
    }
    List<ChangeEvent> events = new ArrayList<>();
    while (rows.hasNext()) {
      Backfill.Input in = rows.next();
      Decoded d = decoder.decode(null, withSequence(in, seqColumn.name(), atNode), -1);
      if (!(d instanceof Decoded.Accepted a)) {
        Decoded.Rejected r = d instanceof Decoded.Rejected x ? x : new Decoded.Rejected("skipped", "not a row");
        throw BatchErrors.snapshotRowRejected(source, in.line(), r.reason(), r.detail());
      }
      ChangeEvent e = a.event();
      if (e.delete()) {
        throw BatchErrors.snapshotRowRejected(source, in.line(), "delete",
            "a snapshot lists the rows that exist; a key it leaves out is deleted");
      }
      if (newest != null && !e.sequence().isAfter(newest)) {
        throw BatchErrors.snapshotNotNewer(table.path(), source, in.line(), text(e.sequence()), text(newest));
      }
      // as for a change: skip_when leaves the row out (so its key is closed at --at, as if the row were not in the
      // file), delete.when makes it a delete at its sequence, derive fills the upsert in the fold
      Optional<ChangeEvent> admitted;
      try {
        admitted = expressions.admit(e);
      } catch (ExpressionException x) {
        throw BatchErrors.snapshotRowRejected(source, in.line(), RejectReason.EXPRESSION_ERROR, x.getMessage());
      }
      admitted.ifPresent(events::add);
    }
    if (newest != null && !atSeq.isAfter(newest)) {
      throw BatchErrors.snapshotNotNewer(table.path(), source, 0, text(atSeq), text(newest));
    }
    List<VersionChange> changes;
    List<io.dimstream.history.StoredEvent> stored = new ArrayList<>();
    try {
      changes = new SnapshotDiff(spec, expressions.derivation()).diff(latest, events, atSeq,
          (key, e) -> stored.add(e));
    } catch (ExpressionException x) {
      // derive runs in the fold: the failing row is the one at the sequence the expression failed on
      throw BatchErrors.snapshotRowFailed(source, RejectReason.EXPRESSION_ERROR, x.getMessage());
    }
    java.util.Set<BusinessKey> carried = new java.util.HashSet<>();
    events.forEach(e -> carried.add(e.key()));
    long closed = latest.values().stream().filter(v -> v.isCurrent() && !carried.contains(v.key())).count();
    if (changes.isEmpty() && stored.isEmpty()) {
      return new Result(events.size(), closed, CommitResult.skipped(snap.version(), 0));
    }
    // even a snapshot that changes no row commits: its rows are events a later takeover must hold
    // the events count under an appId of this snapshot alone, recorded by its commit: those of an attempt whose
    // commit failed are never read, whatever is applied later
    String eventsAppId = spec.name() + "-snapshot-" + java.util.UUID.randomUUID();
    keepEvents(table, snap, stored, eventsAppId);
    CommitResult c = table.newCommit(Operation.MERGE).txns(Map.of(StateMarkers.batch(spec.name()), batchMarker(snap),
        eventsAppId, (long) stored.size())).apply(changes);
    return new Result(events.size(), closed, c);
  }

  /**
   * Keeps the snapshot's events as the event store would hold them beside the table ({@link EventArchive}), before the
   * commit, under {@code appId} with offsets 1 to their count: the commit records that count under {@code appId}, so a
   * takeover holds the rows a version does not show (a row equal to its open version, a change of type-1 columns
   * only) once the commit lands, and never those of a commit that did not.
   */
  private void keepEvents(DeltaTable table, Snapshot snap, List<io.dimstream.history.StoredEvent> stored,
      String appId) {
    EventStoreRecords records = new EventStoreRecords(spec, StateLayouts.parse(null), 1);
    long offset = 0;
    List<EventArchive.Entry> entries = new ArrayList<>(stored.size());
    for (io.dimstream.history.StoredEvent e : stored) {
      EventStoreRecords.ChangelogRecord r = records.of(e);
      entries.add(new EventArchive.Entry(appId, ++offset, r.key(), r.value()));
    }
    try {
      EventArchive.write(table.store(), snap.version(), entries);
    } catch (java.io.IOException e) {
      throw new BatchException("Could not keep the snapshot's " + entries.size() + " events beside the table under "
          + table.store().describe(EventArchive.DIR) + ": " + e.getMessage() + ". Nothing was committed; apply the "
          + "snapshot again", e);
    }
  }

  /** A sequence as the spec writes it (an ISO-8601 timestamp or date, or the number), for messages. */
  private String text(Sequence seq) {
    Column c = spec.sequenceColumns().get(0);
    return ColumnValues.toJson(ColumnValues.sequenceValue(seq.first(), c.type()), c.type()).asText();
  }

  private static JsonNode atNode(String at) {
    try {
      return JSON.getNodeFactory().numberNode(Long.parseLong(at.trim()));
    } catch (NumberFormatException e) {
      return JSON.getNodeFactory().textNode(at.trim());
    }
  }

  private static byte[] withSequence(Backfill.Input in, String seqName, JsonNode at) {
    JsonNode row;
    try {
      row = JSON.readTree(in.value());
    } catch (java.io.IOException e) {
      return in.value(); // the decoder rejects it as malformed, with its own detail
    }
    if (row instanceof ObjectNode o && (!o.has(seqName) || o.get(seqName).isNull())) {
      o.set(seqName, at);
      return o.toString().getBytes(StandardCharsets.UTF_8);
    }
    return in.value();
  }

  /**
   * The value of the batch marker this commit records: any value other than the table's tells a running service that
   * its state no longer holds the table's history (a service takes the table over again at its next start).
   * Above the recorded one, as every txn marker must be, and unique per commit in practice.
   */
  private static long batchMarker(Snapshot snap) {
    return Math.max(snap.txnVersion(StateMarkers.batch(snap.spec().name())) + 1, System.currentTimeMillis());
  }
}
