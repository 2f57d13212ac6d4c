package io.dimstream.enrich;

import io.dimstream.codec.EventJson;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.StateLayouts;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The incremental point-in-time join of one enrichment: fed the dimension's version changes (as its versions topic
 * carries them) and the facts, in any interleaving, it emits each fact once it is decided and emits it again, with
 * the next revision, whenever a later change of the dimension alters what the fact was enriched with. After all
 * input its last record per fact key equals {@link BatchEnrichment#join} of all facts with the final history.
 *
 * <p>Decided: the dimension's progress (the newest sequence of any version change seen here, the <em>watermark</em>)
 * has reached the fact's time, or the fact has waited {@code grace}; with no grace a fact is emitted at once.
 *
 * <p>State, in two {@link SortedBytesStore}s: per business key its versions and newest sequence; per fact, indexed by
 * (business key, fact time, fact key), its values, revision and what its last record showed, and by its fact key
 * where it is kept: a fact re-sent with another time or join key replaces its earlier form, and its records go on
 * with the next revision (within one task: a fact whose join key moves to another partition's task is a new fact
 * there, and its earlier form stays kept where it was). A fact is kept while
 * its time is within the dimension's lateness horizon of its key's newest sequence: the dimension refuses events
 * older than that, so nothing can change the fact's version afterwards; it is then dropped from the store (counted).
 *
 * <p>The changes one dimension event causes (a close-out and a new version, say) arrive as consecutive records of
 * one key. Facts are re-joined once the key's run of changes ends (a change of another key, a fact of the key, or a
 * tick), so that a fact is not corrected to a state halfway through one event; the key and the range of fact times
 * of the last run are kept in one store record, so a restart re-joins them (again, if the run had ended: a re-join
 * emits only facts whose record would change, so it is harmless). The watermark is kept only with a grace, the one
 * thing it decides.
 *
 * <p>The state follows the specs' evolution. Versions written before the dimension's spec gained a column or widened
 * one are read as the dimension's own state is ({@link StateLayouts}). The enrichment spec the kept facts were written
 * under is kept in one store record ({@link EnrichmentLayout}); at the first record after a restart under a spec that
 * changed the added attributes, the kept facts are rewritten in the new one, read by name (an attribute the earlier
 * records did not show reads as null), and a fact whose record now shows something else is emitted again with the
 * next revision. A change the kept facts cannot follow (their columns, key, time or join) is refused
 * ({@link KeptStateException}). Not thread-safe: one per stream task.
 */
public final class Enricher {
  private static final byte VERSIONS = 'v';
  /** The one record of the key whose run of changes was last marked: its bytes' length and bytes, then lo and hi. */
  private static final byte[] PENDING = {'p'};
  private static final byte[] WATERMARK = {'w'};
  /** The one record of the enrichment spec the kept facts were written under ({@link EnrichmentLayout}). */
  private static final byte[] LAYOUT = {'l'};
  private static final byte FACT = 'f';
  private static final byte WAITING = 'q';
  /**
   * Per kept fact, {@code 'k'} and its fact key: the fact-store key it is kept under, so that the fact re-sent with
   * another time or join key replaces it instead of being kept beside it (and corrected beside it, under the same
   * fact key).
   */
  private static final byte PLACE = 'k';
  /**
   * How many keys' decoded versions are kept in memory: every fact reads its key's versions, and decoding them from
   * the store was the largest part of a fact's cost after writing it out.
   */
  private static final int CACHED_KEYS = 10_000;

  private final EnrichmentSpec spec;
  private final FactShape shape;
  private final EnrichmentState state;
  private final EventJson keys;
  private final SortedBytesStore versions;
  private final SortedBytesStore facts;
  private final EnrichmentCounters counters;
  private final long horizon;
  private final long graceMillis;
  private final boolean showsVersion;

  /** Decoded versions of recently used keys, as the store holds them (the store is written only here). */
  private final Map<ByteBuffer, EnrichmentState.KeyVersions> cache = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<ByteBuffer, EnrichmentState.KeyVersions> eldest) {
      return size() > CACHED_KEYS;
    }
  };

  private boolean started;
  /** Why the kept facts cannot be read under this spec, once found; every record is refused with it. */
  private KeptStateException refused;
  private long watermark = Long.MIN_VALUE;
  /** The key whose run of changes is not re-joined yet, and the range of fact times it touched; null: none. */
  private byte[] pendingKey;
  private long pendingLo;
  private long pendingHi;

  /**
   * @param versions where the dimension's versions are kept (one per task, exclusively this enricher's)
   * @param facts    where facts waiting or open to correction are kept (likewise)
   */
  public Enricher(EnrichmentSpec spec, SortedBytesStore versions, SortedBytesStore facts, EnrichmentCounters counters) {
    this(spec, StateLayouts.NONE, versions, facts, counters);
  }

  /**
   * @param dimensionLayouts the attribute layouts of the specs the dimension's table was evolved from: versions kept
   *                         under them are read in the current one
   * @param versions         where the dimension's versions are kept (one per task, exclusively this enricher's)
   * @param facts            where facts waiting or open to correction are kept (likewise)
   * @throws IllegalArgumentException when {@code dimensionLayouts} do not fit the dimension's spec
   */
  public Enricher(EnrichmentSpec spec, StateLayouts dimensionLayouts, SortedBytesStore versions,
      SortedBytesStore facts, EnrichmentCounters counters) {
    this.spec = spec;
    this.shape = new FactShape(spec);
    this.state = new EnrichmentState(spec, dimensionLayouts);
    this.keys = new EventJson(spec.dimension());
    this.versions = versions;
    this.facts = facts;
    this.counters = counters;
    this.horizon = spec.latenessHorizon();
    this.graceMillis = spec.grace().toMillis();
    this.showsVersion = spec.versionIdColumn() != null || spec.validFromColumn() != null;
  }

  /** Applies one change of the dimension's history; {@code now} is the wall-clock time in epoch milliseconds. */
  public void onVersionChange(VersionChange change, long now, Consumer<Enriched> out) {
    start(out);
    byte[] kb = keys.keyBytes(change.key());
    if (pendingKey != null && !Arrays.equals(pendingKey, kb)) {
      flush(out);
    }
    EnrichmentState.KeyVersions kv = keyVersions(kb, change.key());
    List<Version> list = new ArrayList<>(kv.versions());
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    long newest = kv.newest();
    int at = indexOf(list, change);
    Version old = at >= 0 ? list.remove(at) : null;
    if (old != null) {
      lo = old.validFrom().first();
      hi = end(old);
    }
    if (change instanceof VersionChange.Upsert u) {
      Version v = u.version();
      int i = 0;
      while (i < list.size() && list.get(i).validFrom().compareTo(v.validFrom()) < 0) {
        i++;
      }
      list.add(i, v);
      if (old != null && old.attributes().equals(v.attributes())) {
        // the same version with another end (a close-out): only the facts between the two ends can change; without
        // this every update of a key re-read all the facts its previous version covered
        lo = Math.min(end(old), end(v));
        hi = Math.max(end(old), end(v));
      } else {
        lo = Math.min(lo, v.validFrom().first());
        hi = Math.max(hi, end(v));
      }
      newest = Math.max(newest, v.validFrom().first());
      if (v.validTo() != null) {
        newest = Math.max(newest, v.validTo().first());
      }
    }
    EnrichmentState.KeyVersions updated = new EnrichmentState.KeyVersions(newest, list);
    versions.put(key(VERSIONS, kb), state.encode(updated));
    cache.put(ByteBuffer.wrap(kb), updated);
    if (lo < hi) {
      markPending(kb, lo, hi);
    }
    prune(kb, change.key(), newest, out);
    if (newest > watermark) {
      watermark = newest;
      if (graceMillis > 0) { // without grace no fact ever waits, and the watermark decides nothing
        versions.put(WATERMARK, ByteBuffer.allocate(8).putLong(watermark).array());
        releaseUpTo(watermark, out);
      }
    }
  }

  /** Joins one fact; {@code now} is the wall-clock time in epoch milliseconds. */
  public void onFact(Fact fact, long now, Consumer<Enriched> out) {
    onFact(fact, keys.keyBytes(shape.businessKey(fact)), now, out);
  }

  /**
   * As {@link #onFact(Fact, long, Consumer)}, given the canonical bytes of the fact's business key (the key the
   * facts are repartitioned by), which are not rendered again.
   */
  public void onFact(Fact fact, byte[] kb, long now, Consumer<Enriched> out) {
    start(out);
    BusinessKey key = shape.businessKey(fact);
    if (pendingKey != null && Arrays.equals(pendingKey, kb)) {
      flush(out);
    }
    long t = shape.time(fact);
    byte[] fk = shape.factKeyBytes(fact);
    byte[] sk = factKey(kb, t, fk);
    EnrichmentState.KeyVersions kv = keyVersions(kb, key);
    Version v = PointInTime.at(kv.versions(), t);
    byte[] existing = facts.get(sk);
    if (existing != null) {
      EnrichmentState.StoredFact stored = state.decodeFact(existing);
      if (stored.fact().equals(fact)) {
        return; // a duplicate of a fact already kept: its records stand
      }
      if (stored.shown() == null) {
        facts.put(sk, state.encode(new EnrichmentState.StoredFact(fact, stored.revision(), null)));
        return;
      }
      emit(sk, fact, v, stored.revision() + 1, out);
      counters.countCorrected();
      return;
    }
    // the fact re-sent with another time or join key: its earlier form is no longer the fact, and its records go on
    // counting from the last one it had
    long revision = forgetEarlierForm(fk, sk);
    if (t < cutoff(kv.newest())) {
      out.accept(new Enriched(fact, v, revision + 1));
      countDecided(v, revision);
      counters.countDropped();
      return;
    }
    facts.put(placeKey(fk), sk);
    if (graceMillis == 0 || watermark >= t) {
      emit(sk, fact, v, revision + 1, out);
      countDecided(v, revision);
      return;
    }
    facts.put(sk, state.encode(new EnrichmentState.StoredFact(fact, revision, null)));
    facts.put(waitingKey(t, sk), ByteBuffer.allocate(8).putLong(now + graceMillis).array());
    counters.countWaited();
  }

  /**
   * Removes the kept fact of fact key {@code fk} when it is kept under another store key than {@code sk}.
   *
   * @return the revision of its last record (0 when it had none, or no other form is kept)
   */
  private long forgetEarlierForm(byte[] fk, byte[] sk) {
    byte[] pk = placeKey(fk);
    byte[] earlier = facts.get(pk);
    if (earlier == null || Arrays.equals(earlier, sk)) {
      return 0;
    }
    facts.delete(pk); // the new form puts its own when it is kept; one past the horizon is not
    byte[] bytes = facts.get(earlier);
    if (bytes == null) {
      return 0;
    }
    EnrichmentState.StoredFact stored = state.decodeFact(bytes);
    if (stored.shown() == null) {
      facts.delete(waitingKey(shape.time(stored.fact()), earlier));
    }
    facts.delete(earlier);
    return stored.revision();
  }

  /** Counts a fact's record as its first, or (a fact re-sent in another form, whose records go on) a correction. */
  private void countDecided(Version v, long revisionBefore) {
    if (revisionBefore == 0) {
      counters.countFirst(v != null);
    } else {
      counters.countCorrected();
    }
  }

  /**
   * Emits the facts whose grace has run out by {@code now} (epoch milliseconds) and re-joins the facts a finished
   * run of dimension changes touched; the service calls it on a wall-clock schedule.
   */
  public void onTick(long now, Consumer<Enriched> out) {
    if (refused != null) {
      return; // the records that reach it say why
    }
    start(out);
    if (pendingKey != null) {
      flush(out);
    }
    for (Map.Entry<byte[], byte[]> e : facts.range(new byte[] {WAITING}, new byte[] {WAITING + 1})) {
      if (ByteBuffer.wrap(e.getValue()).getLong() <= now) {
        release(e.getKey(), out);
      }
    }
  }

  /** The number of facts kept (waiting or open to correction). */
  public int keptFacts() {
    return facts.range(new byte[] {FACT}, new byte[] {FACT + 1}).size();
  }

  /**
   * Checks that the facts kept (in stores restored before this is called) can be read under this spec, so that a
   * service refuses to start rather than misread them.
   *
   * @throws KeptStateException when they cannot
   */
  public void checkKeptFacts() {
    byte[] kept = versions.get(LAYOUT);
    if (kept != null) {
      keptLayout(kept);
    }
  }

  /** The layout {@code bytes} record, checked to be readable as this spec's. */
  private EnrichmentLayout keptLayout(byte[] bytes) {
    EnrichmentLayout kept;
    try {
      kept = EnrichmentLayout.parse(bytes);
      state.keptUnder(kept);
    } catch (IllegalArgumentException e) {
      throw KeptStateException.unreadable(spec, e.getMessage());
    }
    String why = kept.factsUnreadableAs(EnrichmentLayout.of(spec));
    if (why != null) {
      throw KeptStateException.unreadable(spec, why);
    }
    return kept;
  }

  private void start(Consumer<Enriched> out) {
    if (refused != null) {
      throw refused;
    }
    if (started) {
      return;
    }
    try {
      followSpec(out);
    } catch (KeptStateException e) {
      refused = e;
      throw e;
    }
    started = true;
    byte[] w = versions.get(WATERMARK);
    watermark = w == null ? Long.MIN_VALUE : ByteBuffer.wrap(w).getLong();
    byte[] p = versions.get(PENDING);
    if (p != null) {
      ByteBuffer b = ByteBuffer.wrap(p);
      pendingKey = new byte[b.getInt()];
      b.get(pendingKey);
      pendingLo = b.getLong();
      pendingHi = b.getLong();
    }
    // an earlier release kept one record per pending key ('p' and the key's bytes): re-join its range once
    for (Map.Entry<byte[], byte[]> e : versions.range(new byte[] {'p', 0}, new byte[] {'p' + 1})) {
      versions.delete(e.getKey());
      if (pendingKey == null) {
        ByteBuffer b = ByteBuffer.wrap(e.getValue());
        markPending(Arrays.copyOfRange(e.getKey(), 1, e.getKey().length), b.getLong(), b.getLong());
      }
    }
  }

  /**
   * Records the spec the kept facts are written under; when its attributes differ from the one they were written
   * under, rewrites every kept fact in the current one and emits those whose record now shows something else.
   * Kept by a release that did not record it, the state is taken to be the current spec's.
   */
  private void followSpec(Consumer<Enriched> out) {
    EnrichmentLayout now = EnrichmentLayout.of(spec);
    byte[] bytes = versions.get(LAYOUT);
    EnrichmentLayout kept = bytes == null ? now : keptLayout(bytes);
    if (!kept.attributes().equals(now.attributes())) {
      rewriteKeptFacts(kept, now, out);
    }
    if (bytes == null || !kept.equals(now)) {
      versions.put(LAYOUT, now.toBytes());
    }
  }

  private void rewriteKeptFacts(EnrichmentLayout kept, EnrichmentLayout now, Consumer<Enriched> out) {
    EnrichmentState before = state.keptUnder(kept);
    int[] from = now.attributes().stream().mapToInt(kept.attributes()::indexOf).toArray();
    for (Map.Entry<byte[], byte[]> e : facts.range(new byte[] {FACT}, new byte[] {FACT + 1})) {
      EnrichmentState.StoredFact stored = before.decodeFact(e.getValue());
      if (stored.shown() == null) {
        facts.put(e.getKey(), state.encode(stored)); // still waiting: joined when it is released
        continue;
      }
      List<Object> attrs = new ArrayList<>(from.length);
      for (int at : from) {
        attrs.add(at < 0 ? null : stored.shown().attributes().get(at));
      }
      EnrichmentState.Shown was = new EnrichmentState.Shown(stored.shown().found(), stored.shown().validFrom(), attrs);
      byte[] kb = businessKeyOf(e.getKey());
      Version v = PointInTime.at(keyVersions(kb, keys.key(kb)).versions(), shape.time(stored.fact()));
      if (sameOutput(shown(v), was)) {
        facts.put(e.getKey(), state.encode(new EnrichmentState.StoredFact(stored.fact(), stored.revision(), was)));
      } else {
        emit(e.getKey(), stored.fact(), v, stored.revision() + 1, out);
        counters.countCorrected();
      }
    }
  }

  /** Adds {@code [lo, hi)} to the pending range of {@code kb} (the pending key, or none), kept in the store if it grew. */
  private void markPending(byte[] kb, long lo, long hi) {
    if (pendingKey != null && Arrays.equals(pendingKey, kb)) {
      if (lo >= pendingLo && hi <= pendingHi) {
        return;
      }
      lo = Math.min(lo, pendingLo);
      hi = Math.max(hi, pendingHi);
    }
    pendingKey = kb;
    pendingLo = lo;
    pendingHi = hi;
    versions.put(PENDING, ByteBuffer.allocate(4 + kb.length + 16).putInt(kb.length).put(kb).putLong(lo).putLong(hi)
        .array());
  }

  /** Re-joins the facts of the pending key whose times its run of changes touched, and emits those that changed. */
  private void flush(Consumer<Enriched> out) {
    byte[] kb = pendingKey;
    pendingKey = null;
    long lo = pendingLo;
    long hi = pendingHi;
    BusinessKey key = keys.key(kb);
    List<Version> list = keyVersions(kb, key).versions();
    for (Map.Entry<byte[], byte[]> e : facts.range(factKey(kb, lo, new byte[0]), factBound(kb, hi))) {
      EnrichmentState.StoredFact stored = state.decodeFact(e.getValue());
      if (stored.shown() == null) {
        continue; // still waiting: joined when it is released
      }
      Version v = PointInTime.at(list, shape.time(stored.fact()));
      if (!sameOutput(shown(v), stored.shown())) {
        emit(e.getKey(), stored.fact(), v, stored.revision() + 1, out);
        counters.countCorrected();
      }
    }
  }

  /** Drops the facts of a key that its lateness horizon has passed; a fact still waiting is emitted first. */
  private void prune(byte[] kb, BusinessKey key, long newest, Consumer<Enriched> out) {
    long cutoff = cutoff(newest);
    if (cutoff == Long.MIN_VALUE) {
      return;
    }
    List<Map.Entry<byte[], byte[]>> passed = facts.range(factKey(kb, Long.MIN_VALUE, new byte[0]),
        factBound(kb, cutoff));
    if (passed.isEmpty()) {
      return;
    }
    // a fact the key's unfinished run of changes touched gets its last correction now: it is final
    boolean pending = pendingKey != null && Arrays.equals(pendingKey, kb);
    long lo = pending ? pendingLo : Long.MAX_VALUE;
    long hi = pending ? pendingHi : Long.MIN_VALUE;
    List<Version> list = keyVersions(kb, key).versions();
    for (Map.Entry<byte[], byte[]> e : passed) {
      EnrichmentState.StoredFact stored = state.decodeFact(e.getValue());
      long t = shape.time(stored.fact());
      Version v = PointInTime.at(list, t);
      if (stored.shown() == null) {
        facts.delete(waitingKey(t, e.getKey()));
        out.accept(new Enriched(stored.fact(), v, stored.revision() + 1));
        countDecided(v, stored.revision());
      } else if (t >= lo && t < hi && !sameOutput(shown(v), stored.shown())) {
        out.accept(new Enriched(stored.fact(), v, stored.revision() + 1));
        counters.countCorrected();
      }
      facts.delete(e.getKey());
      forgetPlace(e.getKey());
      counters.countDropped();
    }
  }

  /** Drops the place record of the fact kept under {@code sk}, when it names that key (not a later form's). */
  private void forgetPlace(byte[] sk) {
    byte[] pk = placeKey(factKeyOf(sk));
    if (Arrays.equals(facts.get(pk), sk)) {
      facts.delete(pk);
    }
  }

  private void releaseUpTo(long upTo, Consumer<Enriched> out) {
    byte[] to = upTo == Long.MAX_VALUE ? new byte[] {WAITING + 1} : waitingKey(upTo + 1, new byte[0]);
    for (Map.Entry<byte[], byte[]> e : facts.range(new byte[] {WAITING}, to)) {
      release(e.getKey(), out);
    }
  }

  /** Emits a waiting fact's first record. */
  private void release(byte[] waitingKey, Consumer<Enriched> out) {
    facts.delete(waitingKey);
    byte[] sk = Arrays.copyOfRange(waitingKey, 9, waitingKey.length);
    byte[] bytes = facts.get(sk);
    if (bytes == null) {
      return;
    }
    EnrichmentState.StoredFact stored = state.decodeFact(bytes);
    if (stored.shown() != null) {
      return;
    }
    byte[] kb = businessKeyOf(sk);
    BusinessKey key = keys.key(kb);
    if (pendingKey != null && Arrays.equals(pendingKey, kb)) {
      flush(out);
    }
    Version v = PointInTime.at(keyVersions(kb, key).versions(), shape.time(stored.fact()));
    emit(sk, stored.fact(), v, stored.revision() + 1, out);
    countDecided(v, stored.revision());
  }

  private void emit(byte[] sk, Fact fact, Version v, long revision, Consumer<Enriched> out) {
    facts.put(sk, state.encode(new EnrichmentState.StoredFact(fact, revision, shown(v))));
    out.accept(new Enriched(fact, v, revision));
  }

  private EnrichmentState.Shown shown(Version v) {
    List<Object> attrs = new ArrayList<>(spec.attributes().size());
    for (EnrichmentSpec.Attribute a : spec.attributes()) {
      attrs.add(v == null ? null : v.attributes().get(a.position()));
    }
    return new EnrichmentState.Shown(v != null, v == null ? null : v.validFrom(), attrs);
  }

  /** Whether two records show the same: a new version with the same added attributes shows nothing new unless its id or valid_from is shown. */
  private boolean sameOutput(EnrichmentState.Shown a, EnrichmentState.Shown b) {
    return a.found() == b.found() && a.attributes().equals(b.attributes())
        && (!showsVersion || Objects.equals(a.validFrom(), b.validFrom()));
  }

  private long cutoff(long newest) {
    if (horizon == Long.MAX_VALUE || newest < Long.MIN_VALUE + horizon) {
      return Long.MIN_VALUE;
    }
    return newest - horizon;
  }

  private EnrichmentState.KeyVersions keyVersions(byte[] kb, BusinessKey key) {
    ByteBuffer k = ByteBuffer.wrap(kb);
    EnrichmentState.KeyVersions kv = cache.get(k);
    if (kv == null) {
      kv = state.decodeVersions(key, versions.get(key(VERSIONS, kb)));
      cache.put(k, kv);
    }
    return kv;
  }

  private static int indexOf(List<Version> list, VersionChange change) {
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i).validFrom().equals(change.validFrom())) {
        return i;
      }
    }
    return -1;
  }

  private static long end(Version v) {
    return v.validTo() == null ? Long.MAX_VALUE : v.validTo().first();
  }

  private static byte[] key(byte prefix, byte[] kb) {
    byte[] k = new byte[kb.length + 1];
    k[0] = prefix;
    System.arraycopy(kb, 0, k, 1, kb.length);
    return k;
  }

  /** {@code 'f'}, the length and bytes of the business key, the fact time (sign flipped, so bytes sort as numbers), the fact key. */
  private static byte[] factKey(byte[] kb, long t, byte[] factKey) {
    return ByteBuffer.allocate(1 + 4 + kb.length + 8 + factKey.length).put(FACT).putInt(kb.length).put(kb)
        .putLong(t ^ Long.MIN_VALUE).put(factKey).array();
  }

  /** The first fact-store key of {@code kb} past the facts at times below {@code t} ({@code Long.MAX_VALUE}: past all). */
  private static byte[] factBound(byte[] kb, long t) {
    if (t != Long.MAX_VALUE) {
      return factKey(kb, t, new byte[0]);
    }
    return ByteBuffer.allocate(1 + 4 + kb.length + 9).put(FACT).putInt(kb.length).put(kb)
        .putLong(-1L).put((byte) 0xFF).array();
  }

  private static byte[] waitingKey(long t, byte[] factStoreKey) {
    return ByteBuffer.allocate(9 + factStoreKey.length).put(WAITING).putLong(t ^ Long.MIN_VALUE).put(factStoreKey)
        .array();
  }

  private static byte[] placeKey(byte[] factKey) {
    byte[] k = new byte[factKey.length + 1];
    k[0] = PLACE;
    System.arraycopy(factKey, 0, k, 1, factKey.length);
    return k;
  }

  private static byte[] factKeyOf(byte[] factStoreKey) {
    int n = ByteBuffer.wrap(factStoreKey, 1, 4).getInt();
    return Arrays.copyOfRange(factStoreKey, 5 + n + 8, factStoreKey.length);
  }

  private static byte[] businessKeyOf(byte[] factStoreKey) {
    int n = ByteBuffer.wrap(factStoreKey, 1, 4).getInt();
    return Arrays.copyOfRange(factStoreKey, 5, 5 + n);
  }
}
