package io.dimstream.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.history.StoredEvent;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.StateLayouts;
import io.dimstream.storage.ObjectStore;
import io.dimstream.topology.EventStoreRecords;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events a backfill folded that its rows do not show ({@link io.dimstream.history.TableEvents#hidden}: no-change
 * upserts, type-1 values before their last overwrite, deletes with nothing open), kept beside the table under
 * {@value #DIR} in the event store's own record form, so that the first {@code run} on the table takes them over
 * with the rows and continues it exactly. Parts of at most {@value #PART_BYTES} bytes; a manifest written after the
 * table's commit names the parts of that commit, so parts of a backfill that failed are never read.
 */
public final class KeptEvents {
  private static final Logger LOG = LoggerFactory.getLogger(KeptEvents.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Where the events are kept, beside the table (Delta readers and vacuum ignore directories starting with _). */
  public static final String DIR = "_dimstream/backfill-events";
  static final String MANIFEST = DIR + "/manifest.json";
  static final int PART_BYTES = 32 << 20;

  private KeptEvents() {}

  /** Collects a backfill's hidden events; thread-safe. */
  public static final class Writer {
    private final ObjectStore store;
    private final EventStoreRecords records;
    private final String id = UUID.randomUUID().toString();
    private ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private DataOutputStream out = new DataOutputStream(buffer);
    private int parts;
    private long events;

    Writer(ObjectStore store, DimensionSpec spec) {
      this.store = store;
      this.records = new EventStoreRecords(spec, StateLayouts.parse(null), 1);
    }

    synchronized void add(StoredEvent event) {
      EventStoreRecords.ChangelogRecord r = records.of(event);
      try {
        out.writeInt(r.key().length);
        out.write(r.key());
        out.writeInt(r.value().length);
        out.write(r.value());
        events++;
        if (buffer.size() >= PART_BYTES) {
          flush();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void flush() throws IOException {
      if (buffer.size() == 0) {
        return;
      }
      store.put(part(id, parts++), buffer.toByteArray());
      buffer = new ByteArrayOutputStream();
      out = new DataOutputStream(buffer);
    }

    /** Writes the last part and the manifest naming the parts as those of table version {@code tableVersion}. */
    synchronized void finish(long tableVersion) throws IOException {
      flush();
      manifest(store, id, parts, events, tableVersion);
    }

    /** Deletes the parts written so far (the backfill failed). */
    synchronized void abort() {
      deleteParts(store, id, parts);
    }
  }

  /**
   * The hidden events of one bucket of a load whose buckets are folded in several processes: part {@code n} of the
   * load {@code id}, put whole by {@link #write} (empty when the bucket hides no event, so parts 0 to buckets - 1 all
   * exist). Not thread-safe: one bucket is folded by one thread.
   */
  static final class Part {
    private final ObjectStore store;
    private final EventStoreRecords records;
    private final String id;
    private final int n;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(buffer);
    private long events;

    Part(ObjectStore store, DimensionSpec spec, String id, int n) {
      this.store = store;
      this.records = new EventStoreRecords(spec, StateLayouts.parse(null), 1);
      this.id = id;
      this.n = n;
    }

    void add(StoredEvent event) {
      EventStoreRecords.ChangelogRecord r = records.of(event);
      try {
        out.writeInt(r.key().length);
        out.write(r.key());
        out.writeInt(r.value().length);
        out.write(r.value());
        events++;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Puts the part; returns how many events it holds. */
    long write() throws IOException {
      store.put(part(id, n), buffer.toByteArray());
      return events;
    }
  }

  /** Names parts 0 to {@code parts} - 1 of the load {@code id} as the kept events of table version {@code tableVersion}. */
  static void manifest(ObjectStore store, String id, int parts, long events, long tableVersion) throws IOException {
    store.put(MANIFEST, JSON.writeValueAsBytes(Map.of("id", id, "parts", parts, "events", events,
        "tableVersion", tableVersion)));
    LOG.info("Kept {} events the rows do not show in {} part(s) under {}", events, parts, store.describe(DIR));
  }

  /** Deletes parts 0 to {@code parts} - 1 of the load {@code id} (the load failed), those that exist. */
  static void deleteParts(ObjectStore store, String id, int parts) {
    for (int i = 0; i < parts; i++) {
      try {
        store.delete(part(id, i));
      } catch (IOException e) {
        LOG.warn("Could not delete {}: {}", store.describe(part(id, i)), e.toString());
      }
    }
  }

  private static String part(String id, int n) {
    return DIR + "/" + id + "/part-" + n;
  }

  /** The kept events of {@code store}'s table, if a backfill left some. */
  public static Optional<Kept> find(ObjectStore store) throws IOException {
    byte[] manifest;
    try {
      manifest = store.read(MANIFEST);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    JsonNode m = JSON.readTree(manifest);
    return Optional.of(new Kept(store, m.path("id").asText(), m.path("parts").asInt(), m.path("events").asLong(),
        m.path("tableVersion").asLong()));
  }

  /** A backfill's kept events: {@code events} of them in {@code parts} parts, kept with table version {@code tableVersion}. */
  public record Kept(ObjectStore store, String id, int parts, long events, long tableVersion) {
    /** Calls {@code action} with each event's store key and value, part by part. */
    public void forEach(BiConsumer<byte[], byte[]> action) throws IOException {
      for (int i = 0; i < parts; i++) {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(store.read(part(id, i))))) {
          while (true) {
            int n;
            try {
              n = in.readInt();
            } catch (EOFException end) {
              break;
            }
            byte[] key = in.readNBytes(n);
            byte[] value = in.readNBytes(in.readInt());
            action.accept(key, value);
          }
        }
      }
    }
  }
}
