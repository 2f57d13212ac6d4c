package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.storage.LocalStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventArchiveTest {
  @TempDir Path dir;

  private static EventArchive.Entry entry(String appId, long offset, String key, String value) {
    return new EventArchive.Entry(appId, offset, key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  /** What replaying the archive gives, as "appId@offset key=value" lines, with the table's markers {@code recorded}. */
  private List<String> replay(LocalStore store, Map<String, Long> recorded) throws IOException {
    List<String> out = new ArrayList<>();
    EventArchive.forEach(store, app -> recorded.getOrDefault(app, -1L), e -> out.add(e.appId() + "@" + e.offset()
        + " " + new String(e.key(), StandardCharsets.UTF_8) + "="
        + (e.value() == null ? "null" : new String(e.value(), StandardCharsets.UTF_8))));
    return out;
  }

  @Test
  void shouldGiveEachCommittedEntryOnceInTheOrderWritten() throws IOException {
    LocalStore store = new LocalStore(dir);
    EventArchive.write(store, 3, List.of(entry("t-0", 10, "a", "1"), entry("t-1", 4, "b", "1"),
        entry("t-0", 11, "a", "2")));
    // a commit that failed after its file was written, then the same records read again with more, committed
    EventArchive.write(store, 4, List.of(entry("t-0", 12, "c", "1"), entry("t-0", 13, "a", null)));
    EventArchive.write(store, 5, List.of(entry("t-0", 12, "c", "1"), entry("t-0", 13, "a", null),
        entry("t-0", 14, "a", "3")));
    // read but never committed: past the table's marker
    EventArchive.write(store, 6, List.of(entry("t-0", 15, "z", "9")));

    assertThat(replay(store, Map.of("t-0", 14L, "t-1", 4L))).containsExactly(
        "t-0@10 a=1", "t-1@4 b=1", "t-0@11 a=2", "t-0@12 c=1", "t-0@13 a=null", "t-0@14 a=3");
  }

  @Test
  void shouldSkipFilesOfATopicIncarnationTheTableDoesNotRecord() throws IOException {
    LocalStore store = new LocalStore(dir);
    EventArchive.write(store, 1, List.of(entry("old-0", 5, "a", "1")));
    EventArchive.write(store, 2, List.of(entry("new-0", 0, "a", "2")));

    assertThat(replay(store, Map.of("new-0", 0L))).containsExactly("new-0@0 a=2");
    assertThat(replay(store, Map.of("old-0", 5L, "new-0", 0L))).containsExactly("old-0@5 a=1", "new-0@0 a=2");
  }

  @Test
  void shouldCountABaseOnlyOnceTheTableRecordsItAndThenStandForEverythingBefore() throws IOException {
    LocalStore store = new LocalStore(dir);
    EventArchive.write(store, 1, List.of(entry("t-0", 0, "a", "1"), entry("t-0", 1, "b", "1")));
    EventArchive.Base base = new EventArchive.Base(store, "customers", 7);
    base.add("a".getBytes(StandardCharsets.UTF_8), "1".getBytes(StandardCharsets.UTF_8));
    base.add("b".getBytes(StandardCharsets.UTF_8), null);
    base.finish();
    EventArchive.write(store, 9, List.of(entry("u-0", 0, "c", "1")));

    Map<String, Long> before = new HashMap<>(Map.of("t-0", 1L, "u-0", 0L));
    assertThat(replay(store, before)).as("the takeover that wrote the base did not finish")
        .containsExactly("t-0@0 a=1", "t-0@1 b=1", "u-0@0 c=1");
    Map<String, Long> after = new HashMap<>(before);
    after.put(base.appId(), 7L);
    assertThat(replay(store, after)).containsExactly("t-0@0 a=1", "t-0@1 b=1", base.appId() + "@0 a=1",
        base.appId() + "@1 b=null", "u-0@0 c=1");

    assertThat(base.deleteEarlier()).isEqualTo(1);
    assertThat(replay(store, after)).containsExactly(base.appId() + "@0 a=1", base.appId() + "@1 b=null",
        "u-0@0 c=1");
  }

  @Test
  void shouldWriteABaseInPartsThatReplayInOrder() throws IOException {
    LocalStore store = new LocalStore(dir);
    EventArchive.Base base = new EventArchive.Base(store, "customers", 2);
    byte[] big = new byte[1 << 20];
    int n = EventArchive.Base.BASE_PART_BYTES / big.length + 5;
    for (int i = 0; i < n; i++) {
      base.add(("k" + i).getBytes(StandardCharsets.UTF_8), big);
    }
    base.finish();
    assertThat(EventArchive.files(store)).hasSize(2);
    List<Long> offsets = new ArrayList<>();
    EventArchive.forEach(store, app -> 2L, e -> offsets.add(e.offset()));
    assertThat(offsets).hasSize(n).isSorted();
  }

  @Test
  void shouldLeaveNothingReadableOfAnAbortedBase() throws IOException {
    LocalStore store = new LocalStore(dir);
    EventArchive.Base base = new EventArchive.Base(store, "customers", 2);
    byte[] big = new byte[1 << 20];
    for (int i = 0; i < EventArchive.Base.BASE_PART_BYTES / big.length + 1; i++) {
      base.add(("k" + i).getBytes(StandardCharsets.UTF_8), big);
    }
    base.abort();
    assertThat(EventArchive.files(store)).isEmpty();
  }

  /** 150 commits' files: store keys written again and again, a file read twice, a pruned key. */
  private static Map<String, Long> manyCommits(LocalStore store) throws IOException {
    long offset = 0;
    for (int commit = 0; commit < 150; commit++) {
      List<EventArchive.Entry> entries = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String key = "k" + (commit * 7 + i) % 40;
        entries.add(entry("t-" + commit % 2, offset++, key, commit % 11 == 0 && i == 0 ? null : "v" + commit));
      }
      EventArchive.write(store, commit, entries);
      if (commit == 70) {
        EventArchive.write(store, commit, entries); // a commit retried after its file was written
      }
    }
    return Map.of("t-0", offset, "t-1", offset);
  }

  /** The state a replay leaves: last write per store key, the pruned ones gone. */
  private Map<String, String> replayedState(LocalStore store, Map<String, Long> recorded) throws IOException {
    Map<String, String> state = new java.util.TreeMap<>();
    for (String line : replay(store, recorded)) {
      String kv = line.substring(line.indexOf(' ') + 1);
      String k = kv.substring(0, kv.indexOf('='));
      String v = kv.substring(kv.indexOf('=') + 1);
      if (v.equals("null")) {
        state.remove(k);
      } else {
        state.put(k, v);
      }
    }
    return state;
  }

  @Test
  void shouldMergeSmallFilesIntoOneThatReplaysAlike() throws IOException {
    LocalStore store = new LocalStore(dir);
    Map<String, Long> recorded = manyCommits(store);
    Map<String, String> before = replayedState(store, recorded);
    List<String> inputs = EventArchive.files(store).stream().map(o -> o.key()).toList();
    Map<String, byte[]> copies = new HashMap<>();
    for (String k : inputs) {
      copies.put(k, store.read(k));
    }

    EventArchive.Merged m = EventArchive.mergeSmall(store, app -> recorded.getOrDefault(app, -1L));

    assertThat(m.files()).isEqualTo(151);
    assertThat(EventArchive.files(store)).hasSize(1);
    assertThat(m.kept()).as("one entry per store key").isEqualTo(40);
    assertThat(replayedState(store, recorded)).isEqualTo(before);
    // a crash after the merged file was written and before the run was deleted: both replay alike
    for (var e : copies.entrySet()) {
      store.put(e.getKey(), e.getValue());
    }
    assertThat(replayedState(store, recorded)).isEqualTo(before);
  }

  @Test
  void shouldNotMergeARunWithAFileNoCommitCoversYet() throws IOException {
    LocalStore store = new LocalStore(dir);
    manyCommits(store);
    // the last commits' files are not covered yet (another compactor's commit under way)
    assertThat(EventArchive.mergeSmall(store, app -> 400L).files()).isZero();
    assertThat(EventArchive.files(store)).hasSize(151);
  }

  @Test
  void shouldNotMergeFewFiles() throws IOException {
    LocalStore store = new LocalStore(dir);
    EventArchive.write(store, 1, List.of(entry("t-0", 0, "a", "1")));
    EventArchive.write(store, 2, List.of(entry("t-0", 1, "a", "2")));
    assertThat(EventArchive.mergeSmall(store, app -> 1L).files()).isZero();
  }
}
