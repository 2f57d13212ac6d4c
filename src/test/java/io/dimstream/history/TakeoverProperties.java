package io.dimstream.history;

import static io.dimstream.history.HistoryFixtures.TRACKED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import io.dimstream.fixtures.Arrivals;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.model.VersionsById;
import io.dimstream.spec.HistoryMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The hand-over from a table to the engine ({@link TableEvents}) as properties. A stream of events is cut at
 * {@code c}: the part before is backfilled (the table is the reference fold of it), the table is taken over by a fresh
 * store and the engine goes on with the events from {@code c}; at {@code l >= c} the state is lost and the table,
 * as the engine left it, is taken over again for the events from {@code l}.
 *
 * <p>A table cannot show events that changed nothing visible in it (no-change upserts, a type-1 column's values before
 * its last overwrite, deletes with nothing open): the hand-over is exact when, for each key whose events before a
 * takeover hold such an event, every later event of the key is newer than the key's newest event before it.
 */
class TakeoverProperties {
  static final HistoryMode SCD1_HARD = Scd1ContractTest.HARD;
  static final HistoryMode SCD1_SOFT = Scd1ContractTest.SOFT;

  // ---------------------------------------------------------------------------------------------------------------
  // The model of the hand-over

  /** A generated stream in arrival order, cut at {@code c} (backfill | stream) and {@code l} (state lost). */
  record HandOver(HistoryMode mode, List<ChangeEvent> stream, int c, int l) {
    boolean[] tracked() {
      return mode.isScd1() ? Scd1ContractTest.NONE_TRACKED : TRACKED;
    }

    List<ChangeEvent> prefix() {
      return stream.subList(0, c);
    }

    List<ChangeEvent> all() {
      return stream;
    }

    @Override
    public String toString() {
      return "HandOver[" + mode.kind() + (mode.softDelete() ? " soft_delete" : "") + ", c=" + c + ", l=" + l
          + ", stream=" + stream + "]";
    }
  }

  /** A table served by the engine from a store made of the table's rows, as a taker-over does. */
  static final class TakenOverTable {
    private final VersionsById table = new VersionsById();
    private final HistoryMode mode;
    private final IncrementalHistory engine;
    private InMemoryHistoryStore store;
    private final List<VersionChange> emitted = new ArrayList<>();

    TakenOverTable(List<Version> rows, boolean[] tracked, HistoryMode mode, long horizon) {
      this.mode = mode;
      this.engine = new IncrementalHistory(tracked, horizon, mode);
      rows.forEach(table::put);
      takeOver();
    }

    /** The state is lost: a fresh store made from the table as it is now. */
    void takeOver() {
      store = TakeoverProperties.takeOver(table.sorted(), mode);
    }

    ApplyResult send(ChangeEvent e) {
      ApplyResult r = engine.apply(store, e);
      if (r instanceof ApplyResult.Applied a) {
        emitted.addAll(a.changes());
        table.apply(a.changes());
      }
      return r;
    }

    List<Version> rows() {
      return table.sorted();
    }

    List<VersionChange> emitted() {
      return emitted;
    }
  }

  /**
   * What a taker-over stores for a table: every row's closing delete first, then every row's opening upsert (a later
   * store of one (key, sequence) replaces an earlier one), and each key's current state is its newest stored event.
   */
  static InMemoryHistoryStore takeOver(List<Version> rows, HistoryMode mode) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    rows.forEach(row -> TableEvents.closing(row, mode).ifPresent(e -> store.putEvent(row.key(), e)));
    rows.forEach(row -> store.putEvent(row.key(), TableEvents.opening(row)));
    rows.stream().map(Version::key).distinct().forEach(key -> {
      List<StoredEvent> events = store.eventsFrom(key, Sequence.of(Long.MIN_VALUE));
      StoredEvent newest = events.get(events.size() - 1);
      store.putCurrent(key, new KeyState(newest.sequence(), newest.openAfter()));
    });
    return store;
  }

  /** The three stages of the hand-over; returns the table at the end. */
  static TakenOverTable handOver(HandOver h, long horizon, List<ApplyResult> results) {
    TakenOverTable t = new TakenOverTable(Scd2Fold.fold(h.tracked(), h.mode(), h.prefix()), h.tracked(), h.mode(),
        horizon);
    for (int i = h.c(); i < h.stream().size(); i++) {
      if (i == h.l()) {
        t.takeOver();
      }
      results.add(t.send(h.stream().get(i)));
    }
    return t;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // What a table shows of the events that made it

  /** Per key, the events that count: the last arrival of each sequence. */
  static Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> counting(List<ChangeEvent> arrival) {
    Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> byKey = new LinkedHashMap<>();
    arrival.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new TreeMap<>()).put(e.sequence(), e));
    return byKey;
  }

  /**
   * Whether the rows show the event: it is a row's opening upsert with the row's exact attributes, or a delete at a
   * row's {@code valid_to} that no row of the key starts at.
   */
  static boolean visible(ChangeEvent e, List<Version> rowsOfKey) {
    if (e.delete()) {
      return rowsOfKey.stream().anyMatch(v -> e.sequence().equals(v.validTo()))
          && rowsOfKey.stream().noneMatch(v -> v.validFrom().equals(e.sequence()));
    }
    return rowsOfKey.stream()
        .anyMatch(v -> v.validFrom().equals(e.sequence()) && v.attributes().equals(e.attributes()));
  }

  /** The keys of {@code before} with an event the table folded from it cannot show. */
  static Map<BusinessKey, Sequence> keysWithHiddenEvents(List<ChangeEvent> before, boolean[] tracked,
      HistoryMode mode) {
    List<Version> table = Scd2Fold.fold(tracked, mode, before);
    Map<BusinessKey, Sequence> hidden = new HashMap<>();
    counting(before).forEach((key, events) -> {
      List<Version> rows = table.stream().filter(v -> v.key().equals(key)).toList();
      if (!events.values().stream().allMatch(e -> visible(e, rows))) {
        hidden.put(key, events.lastKey());
      }
    });
    return hidden;
  }

  /**
   * The precondition of exactness for one takeover: every key with a hidden event among the events {@code before} it
   * has only events newer than its newest one {@code after} it.
   */
  static boolean exactAt(List<ChangeEvent> before, List<ChangeEvent> after, boolean[] tracked, HistoryMode mode) {
    Map<BusinessKey, Sequence> hidden = keysWithHiddenEvents(before, tracked, mode);
    return after.stream().allMatch(e -> !hidden.containsKey(e.key()) || e.sequence().isAfter(hidden.get(e.key())));
  }

  /** Both takeovers of the hand-over meet the precondition; {@code accepted}: what the engine applies. */
  static boolean exact(HandOver h, List<ChangeEvent> acceptedBeforeL) {
    List<ChangeEvent> s = h.stream();
    return exactAt(h.prefix(), s.subList(h.c(), s.size()), h.tracked(), h.mode())
        && exactAt(acceptedBeforeL, s.subList(h.l(), s.size()), h.tracked(), h.mode());
  }

  /** The hand-over with its prefix cut down to the events of keys whose events the prefix table all shows. */
  static HandOver withoutHiddenEvents(HandOver h) {
    Map<BusinessKey, Sequence> hidden = keysWithHiddenEvents(h.prefix(), h.tracked(), h.mode());
    List<ChangeEvent> prefix = h.prefix().stream().filter(e -> !hidden.containsKey(e.key())).toList();
    List<ChangeEvent> stream = new ArrayList<>(prefix);
    stream.addAll(h.stream().subList(h.c(), h.stream().size()));
    int dropped = h.c() - prefix.size();
    return new HandOver(h.mode(), stream, prefix.size(), h.l() - dropped);
  }

  static boolean exact(HandOver h) {
    return exact(h, h.stream().subList(0, h.l()));
  }

  /**
   * The events the hand-over's table is the fold of, of those at {@code accepted} (indices in arrival order): all of
   * them, except with {@code history: scd1} without {@code soft_delete}, where a key whose row a delete removed has no
   * row to take over, so the events of such a key before that takeover are gone with its row (a later upsert brings
   * the key back as a new one: a row starting at that upsert, not at the key's first upsert ever).
   */
  static List<ChangeEvent> foldedByHandOver(HandOver h, List<Integer> accepted) {
    List<Integer> kept = new ArrayList<>(accepted);
    if (h.mode().hardDelete()) {
      for (int t : new int[] {h.c(), h.l()}) {
        List<ChangeEvent> before = kept.stream().filter(i -> i < t).map(h.stream()::get).toList();
        java.util.Set<BusinessKey> removed = removedKeys(before, h.tracked(), h.mode());
        kept.removeIf(i -> i < t && removed.contains(h.stream().get(i).key()));
      }
    }
    return kept.stream().map(h.stream()::get).toList();
  }

  /** The keys with events in {@code before} but no row in the table folded from them. */
  static java.util.Set<BusinessKey> removedKeys(List<ChangeEvent> before, boolean[] tracked, HistoryMode mode) {
    java.util.Set<BusinessKey> withRows = new java.util.HashSet<>();
    Scd2Fold.fold(tracked, mode, before).forEach(v -> withRows.add(v.key()));
    java.util.Set<BusinessKey> removed = new java.util.HashSet<>(counting(before).keySet());
    removed.removeAll(withRows);
    return removed;
  }

  static List<Integer> indices(List<?> stream) {
    return IntStream.range(0, stream.size()).boxed().toList();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Generators

  private static final String[] CITIES = {"Oslo", "Rome", null, "Bern"};
  private static final String[] NAMES = {"A", "B"};

  /** One drawn event of a key's history: its sequence, what it does, a city and a name to use. */
  record Roll(int seq, int kind, int city, int name) {}

  static Gen<Roll> rolls() {
    // kind: 0-5 a tracked change (or the first upsert), 6-7 a delete, 8 a type-1 change, 9 an upsert changing nothing
    return integers().between(1, 15).zip(integers().between(0, 9), integers().between(0, 3),
        integers().between(0, 1), Roll::new);
  }

  /**
   * One key's events in sequence order, shaped like a real history: mostly tracked changes and deletes of what is
   * open (so most events are visible in the rows), sometimes a type-1 change or an upsert changing nothing.
   */
  static List<ChangeEvent> history(long key, List<Roll> rolls) {
    TreeMap<Integer, Roll> bySeq = new TreeMap<>();
    rolls.forEach(r -> bySeq.putIfAbsent(r.seq(), r));
    List<ChangeEvent> out = new ArrayList<>();
    String[] open = null; // city, name of the open version
    for (Roll r : bySeq.values()) {
      if (r.kind() >= 6 && r.kind() <= 7) {
        out.add(HistoryFixtures.del(key, r.seq()));
        open = null;
        continue;
      }
      String city = CITIES[r.city()];
      String name = NAMES[r.name()];
      if (open != null && r.kind() == 8) {
        city = open[0];
        name = Objects.equals(open[1], "A") ? "B" : "A";
      } else if (open != null && r.kind() == 9) {
        city = open[0];
        name = open[1];
      } else if (open != null && Objects.equals(open[0], city)) {
        city = CITIES[(r.city() + 1) % CITIES.length];
      }
      out.add(HistoryFixtures.up(key, r.seq(), city, name));
      open = new String[] {city, name};
    }
    return out;
  }

  /** An event arriving at {@code at} (its sequence plus a jitter); {@code order} breaks ties. */
  private record Arrival(ChangeEvent event, int at, int order) {}

  /**
   * Histories of up to four keys; then some events of one (key, sequence) sent again with other content and some
   * sent again as they were; each arriving at its sequence plus a random jitter (none: in order; large: any order).
   */
  static Gen<List<ChangeEvent>> shapedStreams() {
    Gen<List<List<Roll>>> keys = lists().of(lists().of(rolls()).ofSizeBetween(0, 8)).ofSizeBetween(1, 4);
    Gen<List<Roll>> replacements = lists().of(rolls()).ofSizeBetween(0, 2);
    Gen<List<Integer>> resends = lists().of(integers().between(0, 1_000)).ofSizeBetween(0, 5);
    Gen<Integer> spread = Generate.pick(List.of(0, 2, 5, 30));
    return keys.zip(replacements, resends, spread, (histories, replaced, resent, maxJitter) -> {
      List<ChangeEvent> base = new ArrayList<>();
      for (int k = 0; k < histories.size(); k++) {
        base.addAll(history(k + 1, histories.get(k)));
      }
      List<ChangeEvent> extra = new ArrayList<>();
      for (Roll r : replaced) {
        if (!base.isEmpty()) {
          ChangeEvent at = base.get(r.seq() * 7 % base.size());
          long key = (Long) at.key().values().get(0);
          extra.add(r.kind() >= 6 && r.kind() <= 7 ? HistoryFixtures.del(key, at.sequence().first())
              : HistoryFixtures.up(key, at.sequence().first(), CITIES[r.city()], NAMES[r.name()]));
        }
      }
      List<ChangeEvent> again = new ArrayList<>();
      for (int i : resent) {
        if (!base.isEmpty()) {
          again.add(base.get(i % base.size()));
        }
      }
      return new Object[] {base, extra, again, maxJitter};
    }).flatMap(parts -> jittered(parts));
  }

  @SuppressWarnings("unchecked")
  private static Gen<List<ChangeEvent>> jittered(Object[] parts) {
    List<ChangeEvent> base = (List<ChangeEvent>) parts[0];
    List<ChangeEvent> extra = (List<ChangeEvent>) parts[1];
    List<ChangeEvent> again = (List<ChangeEvent>) parts[2];
    int maxJitter = (Integer) parts[3];
    List<ChangeEvent> all = new ArrayList<>(base);
    all.addAll(extra);
    int sentAgainFrom = all.size();
    all.addAll(again);
    // Events sent again come late: the overlap of a backfill and the stream is sent again after it.
    return lists().of(integers().between(0, maxJitter)).ofSize(all.size()).map(jitters -> {
      List<Arrival> arrivals = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        int late = i >= sentAgainFrom ? 15 : 0;
        arrivals.add(new Arrival(all.get(i), (int) all.get(i).sequence().first() + jitters.get(i) + late, i));
      }
      arrivals.sort(Comparator.comparingInt(Arrival::at).thenComparingInt(Arrival::order));
      return arrivals.stream().map(Arrival::event).toList();
    });
  }

  /** Three in four streams shaped like histories, one in four any events in any order (the contract's generator). */
  static Gen<List<ChangeEvent>> streams() {
    return Generate.frequency(List.of(
        org.quicktheories.api.Pair.of(3, shapedStreams()),
        org.quicktheories.api.Pair.of(1, Scd2ContractProperties.arrivals())));
  }

  static Gen<HistoryMode> modes() {
    return Generate.frequency(List.of(
        org.quicktheories.api.Pair.of(4, Generate.constant(HistoryMode.SCD2)),
        org.quicktheories.api.Pair.of(1, Generate.constant(SCD1_SOFT)),
        org.quicktheories.api.Pair.of(1, Generate.constant(SCD1_HARD))));
  }

  static Gen<HandOver> handOvers() {
    return modes().zip(streams(), (m, s) -> new Object[] {m, s}).flatMap(ms -> {
      HistoryMode mode = (HistoryMode) ms[0];
      @SuppressWarnings("unchecked")
      List<ChangeEvent> stream = (List<ChangeEvent>) ms[1];
      int n = stream.size();
      return integers().between(0, n).flatMap(c -> integers().between(c, n).map(l -> new HandOver(mode, stream, c, l)));
    });
  }

  // ---------------------------------------------------------------------------------------------------------------
  // What the generated cases cover (counted over the cases a property checked, asserted after it)

  static final class Tally {
    final Map<String, AtomicInteger> counts = new LinkedHashMap<>();
    /** Features rarer by construction than the property's share, each with the share it must reach. */
    final Map<String, Double> rareShares = new LinkedHashMap<>();
    int checked;
    int generated;

    <T> Gen<T> counted(Gen<T> gen) {
      return gen.map(x -> {
        generated++;
        return x;
      });
    }

    void checked(HandOver h) {
      checked++;
      List<ChangeEvent> s = h.stream();
      List<ChangeEvent> suffix = s.subList(h.c(), s.size());
      Map<BusinessKey, TreeMap<Sequence, ChangeEvent>> prefix = counting(h.prefix());
      Map<BusinessKey, Sequence> hidden = keysWithHiddenEvents(h.prefix(), h.tracked(), h.mode());
      List<Version> prefixTable = Scd2Fold.fold(h.tracked(), h.mode(), h.prefix());
      List<Version> whole = Scd2Fold.fold(h.tracked(), h.mode(), s);
      count("late event within the suffix", IntStream.range(h.c(), s.size()).anyMatch(i -> IntStream.range(h.c(), i)
          .anyMatch(j -> s.get(j).key().equals(s.get(i).key()) && !s.get(i).sequence().isAfter(s.get(j).sequence()))));
      count("visible prefix event sent again after the cut", suffix.stream().anyMatch(e -> {
        TreeMap<Sequence, ChangeEvent> events = prefix.get(e.key());
        return events != null && e.equals(events.get(e.sequence())) && !hidden.containsKey(e.key());
      }));
      count("other event at a sequence of the prefix", suffix.stream().anyMatch(e -> {
        TreeMap<Sequence, ChangeEvent> events = prefix.get(e.key());
        return events != null && events.containsKey(e.sequence()) && !e.equals(events.get(e.sequence()));
      }));
      count("key with hidden events, newer events later",
          !hidden.isEmpty() && suffix.stream().anyMatch(e -> hidden.containsKey(e.key())));
      count("key all visible in a non-empty prefix table", prefixTable.stream().anyMatch(v -> !hidden.containsKey(v.key())));
      count("closed row (delete) in the final table", whole.stream().anyMatch(v -> !v.isCurrent()
          && whole.stream().noneMatch(w -> w.key().equals(v.key()) && w.validFrom().equals(v.validTo()))));
      count("re-insert after a delete in the final table", whole.stream().anyMatch(v -> whole.stream()
          .anyMatch(w -> w.key().equals(v.key()) && v.validTo() != null && w.validFrom().isAfter(v.validTo()))));
      count("state lost inside the suffix", h.c() < h.l() && h.l() < s.size());
      count("scd2", !h.mode().isScd1());
      count("scd1 soft_delete", h.mode().isScd1() && h.mode().softDelete());
      count("scd1 without soft_delete", h.mode().hardDelete());
    }

    void count(String what, boolean happened) {
      AtomicInteger n = counts.computeIfAbsent(what, w -> new AtomicInteger());
      if (happened) {
        n.incrementAndGet();
      }
    }

    /** Counts a feature rarer by construction (it needs several generated choices at once) that must reach {@code share}. */
    void countRare(String what, boolean happened, double share) {
      rareShares.put(what, share);
      count(what, happened);
    }

    /** Each feature in at least {@code share} of the checked cases (a rare one in at least its own share). */
    void assertCovers(String property, double share) {
      System.out.println(property + ": " + checked + " cases checked"
          + (generated > 0 ? " of " + generated + " generated" : "") + "; " + counts);
      counts.forEach((what, n) -> assertThat(n.get()).as("%s: cases with %s", property, what)
          .isGreaterThanOrEqualTo((int) (checked * rareShares.getOrDefault(what, share))));
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Properties

  @Test
  void shouldNeverHoldTwoCurrentRowsOrOverlaps() {
    Tally tally = new Tally();
    qt().withExamples(1_500).forAll(handOvers()).checkAssert(h -> {
      tally.checked(h);
      TakenOverTable t = new TakenOverTable(Scd2Fold.fold(h.tracked(), h.mode(), h.prefix()), h.tracked(), h.mode(),
          Long.MAX_VALUE);
      for (int i = h.c(); i < h.stream().size(); i++) {
        if (i == h.l()) {
          t.takeOver();
        }
        t.send(h.stream().get(i));
        Scd2ContractProperties.assertHistoryInvariants(t.rows());
        if (h.mode().isScd1()) {
          assertThat(t.rows().stream().map(Version::key).distinct().count()).as("one row per key")
              .isEqualTo(t.rows().size());
        }
      }
    });
    tally.assertCovers("shouldNeverHoldTwoCurrentRowsOrOverlaps", 0.03);
  }

  @Test
  void shouldGiveTheFoldOfTheWholeStreamAcrossHandOvers() {
    Tally tally = new Tally();
    qt().withExamples(1_500).withGenerateAttempts(100).forAll(tally.counted(handOvers()))
        .assuming(TakeoverProperties::exact).checkAssert(h -> {
          tally.checked(h);
          TakenOverTable t = handOver(h, Long.MAX_VALUE, new ArrayList<>());
          List<ChangeEvent> folded = foldedByHandOver(h, indices(h.stream()));
          tally.countRare("scd1: key removed by a delete before a takeover, back after it",
              folded.size() < h.all().size(), 0.01);
          assertThat(t.rows()).as("after both hand-overs")
              .containsExactlyElementsOf(Scd2Fold.fold(h.tracked(), h.mode(), folded));
        });
    tally.assertCovers("shouldGiveTheFoldOfTheWholeStreamAcrossHandOvers", 0.03);
  }

  /**
   * A backfill that keeps the events its rows do not show ({@link TableEvents#hidden}, as `dimstream backfill` does)
   * hands over exactly: the first takeover stores them after the rows' events, and the table after any streamed
   * suffix is the fold of the whole stream, with no precondition at all.
   */
  @Test
  void shouldGiveTheFoldOfTheWholeStreamAfterABackfillThatKeptItsHiddenEvents() {
    Tally tally = new Tally();
    qt().withExamples(1_500).forAll(handOvers()).checkAssert(h -> {
      tally.checked(h);
      IncrementalHistory engine = new IncrementalHistory(h.tracked(), Long.MAX_VALUE, h.mode());
      List<Version> table = Scd2Fold.fold(h.tracked(), h.mode(), h.prefix());
      InMemoryHistoryStore store = takeOver(table, keptByBackfill(h, engine, table), List.of(), h.mode());
      VersionsById rows = new VersionsById();
      table.forEach(rows::put);
      for (ChangeEvent e : h.stream().subList(h.c(), h.stream().size())) {
        if (engine.apply(store, e) instanceof ApplyResult.Applied a) {
          rows.apply(a.changes());
        }
      }
      assertThat(rows.sorted()).isEqualTo(Scd2Fold.fold(h.tracked(), h.mode(), h.stream()));
    });
    tally.assertCovers("shouldGiveTheFoldOfTheWholeStreamAfterABackfillThatKeptItsHiddenEvents", 0.03);
  }

  /**
   * The whole hand-over as `dimstream` runs it: a backfill that keeps its hidden events, a takeover, a stream whose
   * every event-store write is kept beside the table (the event records the compactor archives), then the state lost
   * and the table taken over again from its rows, the backfill's kept events and that archive. The table after any
   * further suffix is the fold of the whole stream, with no precondition: nothing the rows cannot show is lost.
   */
  @Test
  void shouldGiveTheFoldOfTheWholeStreamWhenTheStateIsLostAfterStreaming() {
    Tally tally = new Tally();
    qt().withExamples(1_500).forAll(handOvers()).checkAssert(h -> {
      tally.checked(h);
      IncrementalHistory engine = new IncrementalHistory(h.tracked(), Long.MAX_VALUE, h.mode());
      List<Version> prefixTable = Scd2Fold.fold(h.tracked(), h.mode(), h.prefix());
      Map<BusinessKey, List<StoredEvent>> kept = keptByBackfill(h, engine, prefixTable);
      VersionsById table = new VersionsById();
      prefixTable.forEach(table::put);
      List<Map.Entry<BusinessKey, StoredEvent>> archive = new ArrayList<>();
      HistoryStore store = takingOver(table.sorted(), kept, archive, h.mode());
      for (int i = h.c(); i < h.stream().size(); i++) {
        if (i == h.l()) {
          store = takingOver(table.sorted(), kept, archive, h.mode());
        }
        if (engine.apply(store, h.stream().get(i)) instanceof ApplyResult.Applied a) {
          table.apply(a.changes());
        }
      }
      assertThat(table.sorted()).as("after the backfill, the stream, the lost state and the rest of the stream")
          .isEqualTo(Scd2Fold.fold(h.tracked(), h.mode(), h.stream()));
    });
    tally.assertCovers("shouldGiveTheFoldOfTheWholeStreamWhenTheStateIsLostAfterStreaming", 0.03);
  }

  /**
   * Per key of the prefix, the events a backfill of it keeps beside {@code table} (its fold): those the engine stores
   * that the rows do not show ({@link TableEvents#hidden}), as `dimstream backfill` does.
   */
  static Map<BusinessKey, List<StoredEvent>> keptByBackfill(HandOver h, IncrementalHistory engine,
      List<Version> table) {
    InMemoryHistoryStore backfilled = new InMemoryHistoryStore();
    h.prefix().forEach(e -> engine.apply(backfilled, e)); // the events as the engine stores them
    Map<BusinessKey, List<StoredEvent>> kept = new LinkedHashMap<>();
    for (BusinessKey key : counting(h.prefix()).keySet()) {
      List<Version> rows = table.stream().filter(v -> v.key().equals(key)).toList();
      kept.put(key, TableEvents.hidden(backfilled.eventsFrom(key, Sequence.of(Long.MIN_VALUE)), rows, h.mode(),
          engine));
    }
    return kept;
  }

  /**
   * A takeover's store: the rows' events, then the events a backfill kept, then the archived writes in the order they
   * were made (a later write of one (key, sequence) replaces an earlier one).
   */
  static InMemoryHistoryStore takeOver(List<Version> rows, Map<BusinessKey, List<StoredEvent>> kept,
      List<Map.Entry<BusinessKey, StoredEvent>> archive, HistoryMode mode) {
    InMemoryHistoryStore store = takeOver(rows, mode);
    kept.forEach((key, events) -> events.forEach(e -> store.putEvent(key, e)));
    archive.forEach(w -> store.putEvent(w.getKey(), w.getValue()));
    java.util.Set<BusinessKey> keys = new java.util.LinkedHashSet<>(kept.keySet());
    archive.forEach(w -> keys.add(w.getKey()));
    rows.forEach(v -> keys.add(v.key()));
    for (BusinessKey key : keys) {
      List<StoredEvent> events = store.eventsFrom(key, Sequence.of(Long.MIN_VALUE));
      if (!events.isEmpty()) {
        StoredEvent newest = events.get(events.size() - 1);
        store.putCurrent(key, new KeyState(newest.sequence(), newest.openAfter()));
      }
    }
    return store;
  }

  /**
   * A takeover as the service makes it: the store of {@link #takeOver(List, Map, List, HistoryMode)}, whose every
   * event then becomes the archive (the base the takeover writes beside the table, standing for all before it), and
   * which tells the archive of every later write.
   */
  static HistoryStore takingOver(List<Version> rows, Map<BusinessKey, List<StoredEvent>> kept,
      List<Map.Entry<BusinessKey, StoredEvent>> archive, HistoryMode mode) {
    InMemoryHistoryStore store = takeOver(rows, kept, archive, mode);
    java.util.Set<BusinessKey> keys = new java.util.LinkedHashSet<>(kept.keySet());
    archive.forEach(w -> keys.add(w.getKey()));
    rows.forEach(v -> keys.add(v.key()));
    archive.clear();
    for (BusinessKey key : keys) {
      store.eventsFrom(key, Sequence.of(Long.MIN_VALUE)).forEach(e -> archive.add(Map.entry(key, e)));
    }
    return archiving(store, archive);
  }

  /** {@code store}, telling {@code archive} of every event it stores, as the topology's event records do. */
  static HistoryStore archiving(InMemoryHistoryStore store, List<Map.Entry<BusinessKey, StoredEvent>> archive) {
    return new HistoryStore() {
      @Override
      public KeyState current(BusinessKey key) {
        return store.current(key);
      }

      @Override
      public void putCurrent(BusinessKey key, KeyState state) {
        store.putCurrent(key, state);
      }

      @Override
      public StoredEvent eventBefore(BusinessKey key, Sequence sequence) {
        return store.eventBefore(key, sequence);
      }

      @Override
      public List<StoredEvent> eventsFrom(BusinessKey key, Sequence from) {
        return store.eventsFrom(key, from);
      }

      @Override
      public void putEvent(BusinessKey key, StoredEvent event) {
        store.putEvent(key, event);
        archive.add(Map.entry(key, event));
      }
    };
  }

  @Test
  void shouldChangeNothingWhenTheOverlapIsSentAgain() {
    Tally tally = new Tally();
    Gen<SentAgain> cases = handOvers().map(TakeoverProperties::withoutHiddenEvents).flatMap(h -> {
      // the events of the prefix that count (the last arrival of each sequence), again in any order
      List<ChangeEvent> counted = counting(h.prefix()).values().stream().flatMap(m -> m.values().stream()).toList();
      return Arrivals.shuffled(counted).map(again -> new SentAgain(h, again));
    });
    qt().withExamples(1_000).withGenerateAttempts(100).forAll(cases)
        .assuming(sa -> !sa.h().prefix().isEmpty())
        .checkAssert(sa -> {
          HandOver h = sa.h();
          List<ChangeEvent> again = sa.again();
          tally.checked(h);
          assertThat(keysWithHiddenEvents(h.prefix(), h.tracked(), h.mode())).isEmpty();
          List<Version> table = Scd2Fold.fold(h.tracked(), h.mode(), h.prefix());
          TakenOverTable t = new TakenOverTable(table, h.tracked(), h.mode(), Long.MAX_VALUE);
          again.forEach(t::send);
          assertThat(t.emitted()).as("changes emitted for the prefix sent again").isEmpty();
          assertThat(t.rows()).containsExactlyElementsOf(table);
        });
    tally.assertCovers("shouldChangeNothingWhenTheOverlapIsSentAgain", 0.0);
    assertThat(tally.checked).isEqualTo(1_000);
  }

  @Test
  void shouldRefuseEventsBeyondTheHorizonAsASingleStreamWould() {
    Tally tally = new Tally();
    Gen<WithHorizon> cases = tally.counted(handOvers()).zip(integers().between(0, 6),
        (h, horizon) -> new WithHorizon(h, horizon));
    qt().withExamples(1_500).withGenerateAttempts(100).forAll(cases)
        .assuming(wh -> exact(wh.h(), singleStream(wh.h(), wh.horizon()).acceptedBeforeL()))
        .checkAssert(wh -> {
          HandOver h = wh.h();
          long horizon = wh.horizon();
          tally.checked(h);
          SingleStream single = singleStream(h, horizon);
          List<ApplyResult> results = new ArrayList<>();
          TakenOverTable t = handOver(h, horizon, results);
          List<Boolean> tooLate = results.stream().map(r -> r instanceof ApplyResult.TooLate).toList();
          assertThat(tooLate).as("events refused, from the cut on").isEqualTo(single.tooLate());
          assertThat(t.rows()).as("the table").containsExactlyElementsOf(
              Scd2Fold.fold(h.tracked(), h.mode(), foldedByHandOver(h, single.accepted())));
          if (!h.mode().hardDelete()) {
            assertThat(t.rows()).as("the single stream's table").containsExactlyElementsOf(single.rows());
          }
          tally.count("event refused beyond the horizon", tooLate.contains(true));
        });
    tally.assertCovers("shouldRefuseEventsBeyondTheHorizonAsASingleStreamWould", 0.03);
  }

  /** A hand-over whose prefix (the events that count) is sent again after the takeover, in {@code again}'s order. */
  record SentAgain(HandOver h, List<ChangeEvent> again) {}

  /** A hand-over with an engine keeping events for {@code horizon}. */
  record WithHorizon(HandOver h, long horizon) {}

  /** One engine over the whole stream: the prefix as a backfill takes it (every event), the rest with the horizon. */
  record SingleStream(List<Integer> accepted, List<ChangeEvent> acceptedBeforeL, List<Boolean> tooLate,
      List<Version> rows) {}

  static SingleStream singleStream(HandOver h, long horizon) {
    InMemoryHistoryStore store = new InMemoryHistoryStore();
    IncrementalHistory backfill = new IncrementalHistory(h.tracked(), Long.MAX_VALUE, h.mode());
    IncrementalHistory stream = new IncrementalHistory(h.tracked(), horizon, h.mode());
    VersionsById table = new VersionsById();
    List<Integer> accepted = new ArrayList<>();
    List<ChangeEvent> acceptedBeforeL = new ArrayList<>();
    List<Boolean> tooLate = new ArrayList<>();
    for (int i = 0; i < h.stream().size(); i++) {
      ChangeEvent e = h.stream().get(i);
      ApplyResult r = (i < h.c() ? backfill : stream).apply(store, e);
      if (r instanceof ApplyResult.Applied a) {
        table.apply(a.changes());
        accepted.add(i);
        if (i < h.l()) {
          acceptedBeforeL.add(e);
        }
      }
      if (i >= h.c()) {
        tooLate.add(r instanceof ApplyResult.TooLate);
      }
    }
    return new SingleStream(accepted, acceptedBeforeL, tooLate, table.sorted());
  }
}
