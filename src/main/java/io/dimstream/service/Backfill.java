package io.dimstream.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.change.ChangeDecoder;
import io.dimstream.change.Decoded;
import io.dimstream.config.DimensionSpec;
import io.dimstream.history.InMemoryHistoryStore;
import io.dimstream.model.BusinessKeys;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.table.CommitResult;
import io.dimstream.table.DeltaTable;
import io.dimstream.topology.Scd2Step;
import io.dimstream.topology.UnknownFieldWarnings;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Backfill's pipeline, without Kafka: change records in arrival order through the topology's own decode, apply and
 * dead-letter rules ({@link Scd2Step}) into an in-memory history, then one {@code WRITE} commit of a new table. The
 * table equals the one the streaming path builds from the same records arriving in that order, and the records it
 * rejects are the ones the dead-letter topic would get, with the same reasons and details.
 */
public final class Backfill {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Records between two prunings of the event store: memory follows the lateness horizon, not the archive. */
  static final int PRUNE_EVERY = 100_000;

  private final DimensionSpec spec;

  public Backfill(DimensionSpec spec) {
    this.spec = spec;
  }

  /** One change record of the input, as the changes topic would carry its value; {@code line} is 1-based. */
  public record Input(long line, byte[] value) {}

  /** What a backfill computed: the final versions, ordered by key then {@code valid_from}, and the counts. */
  public record Result(List<Version> versions, long read, long rejected) {
    public Result {
      versions = List.copyOf(versions);
    }
  }

  /**
   * Applies {@code records} in order and returns the final versions.
   *
   * @param source  names the input in log lines (e.g. the file)
   * @param dlqFile where each rejected record is written as a JSON line {@code {reason, detail, record}} (record as
   *                UTF-8 text); null to count them only. Created or truncated
   * @throws IOException when the dead-letter file cannot be written
   */
  public Result build(Iterator<Input> records, String source, Path dlqFile) throws IOException {
    // A failing engine sends the record to the DLQ, as in the topology; nothing here is a Kafka failure.
    Scd2Step step = new Scd2Step(spec, ChangeDecoder.forSpec(spec), e -> false);
    UnknownFieldWarnings unknownWarnings = new UnknownFieldWarnings(spec.name(), spec.source());
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    VersionsById rows = new VersionsById();
    long read = 0;
    long rejected = 0;
    try (BufferedWriter dlq = dlqFile == null ? null : Files.newBufferedWriter(dlqFile, StandardCharsets.UTF_8)) {
      while (records.hasNext()) {
        Input in = records.next();
        read++;
        if (read % PRUNE_EVERY == 0) {
          store.prune(step.history()); // as the topology's punctuator does
        }
        String reason;
        String detail;
        Decoded d = step.decode(null, in.value(), -1, () -> source + ", line " + in.line());
        if (d instanceof Decoded.Skipped) {
          continue; // a Debezium tombstone after its delete, as the topology skips it
        }
        if (d instanceof Decoded.Rejected r) {
          reason = r.reason();
          detail = r.detail();
        } else {
          Decoded.Accepted a = (Decoded.Accepted) d;
          unknownWarnings.seen(a.unknownFields(), () -> source + ", line " + in.line());
          Scd2Step.Outcome o = step.apply(store, a.event(), () -> source + ", line " + in.line());
          if (o instanceof Scd2Step.Applied applied) {
            rows.apply(applied.result().changes());
            continue;
          }
          Scd2Step.Rejected r = (Scd2Step.Rejected) o;
          reason = r.reason();
          detail = r.detail();
        }
        rejected++;
        if (dlq != null) {
          writeDeadLetter(dlq, reason, detail, in.value());
        }
      }
    }
    return new Result(rows.sorted(), read, rejected);
  }

  /**
   * Creates the table at {@code tablePath} (or opens it, if it exists and fits the spec) and writes every version
   * of {@code result} in one {@code WRITE} commit.
   */
  public CommitResult write(Result result, Path tablePath) {
    DeltaTable table = DeltaTable.openOrCreate(tablePath, spec);
    List<VersionChange> upserts = new ArrayList<>(result.versions().size());
    result.versions().forEach(v -> upserts.add(new VersionChange.Upsert(v, ChangeKind.OPEN)));
    return table.commit(upserts, Map.of(), "WRITE");
  }

  private static void writeDeadLetter(BufferedWriter dlq, String reason, String detail, byte[] record)
      throws IOException {
    ObjectNode o = JSON.createObjectNode();
    o.put("reason", reason);
    o.put("detail", detail);
    o.put("record", record == null ? null : new String(record, StandardCharsets.UTF_8));
    dlq.write(JSON.writeValueAsString(o));
    dlq.newLine();
  }
}
