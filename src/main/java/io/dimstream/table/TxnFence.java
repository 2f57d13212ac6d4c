package io.dimstream.table;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Where a commit's changes were read from: per {@code txn} appId, the first source version (for the compactor: the
 * first versions-topic offset of its batch in that partition). The commit lands only on a table that records less
 * than that for every appId, checked on the very snapshot the commit is written on top of, so a writer that read its
 * source from a position another writer has since moved past (a zombie whose partitions moved while it was paused)
 * is refused with {@link TxnOverlapException} and writes nothing, even when it resumes between its own checks and
 * the commit, or races the other writer for the same table version.
 *
 * <p>The {@code txn} markers alone cannot tell: a stale batch that runs past the newer writer's last offset has a
 * marker above the recorded one, yet its first records were applied already.
 */
public record TxnFence(Map<String, Long> readFrom) {
  private static final TxnFence NONE = new TxnFence(Map.of());

  public TxnFence {
    readFrom = Map.copyOf(readFrom);
  }

  /** No fence: only the markers themselves are compared with the table (see {@link Transaction#commit}). */
  public static TxnFence none() {
    return NONE;
  }

  /** The appIds whose recorded version (-1: none) is at or past where this commit read from, with that version. */
  public Map<String, Long> passedBy(ToLongFunction<String> recorded) {
    Map<String, Long> out = new TreeMap<>();
    readFrom.forEach((app, first) -> {
      long r = recorded.applyAsLong(app);
      if (r >= first) {
        out.put(app, r);
      }
    });
    return out;
  }
}
