package io.dimstream.table.internal.log;

import io.dimstream.storage.LocalStore;
import io.dimstream.storage.ObjectInfo;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.PutOutcomeUnknownException;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.CommitInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code _delta_log} of a table in its {@link ObjectStore}: commit and checkpoint keys, listing and reading
 * commits, put-if-absent of a new commit.
 */
public final class DeltaLog {
  /** The log's key prefix. */
  public static final String DIR = "_delta_log/";
  private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");
  private static final Pattern CHECKPOINT = Pattern.compile("(\\d{20})\\.checkpoint\\.parquet");
  private static final Pattern CHECKPOINT_PART =
      Pattern.compile("(\\d{20})\\.checkpoint\\.(\\d{10})\\.(\\d{10})\\.parquet");

  /** The table's store. */
  public final ObjectStore store;

  public DeltaLog(ObjectStore store) {
    this.store = store;
  }

  /** The log of the table in the local directory {@code root}. */
  public DeltaLog(Path root) {
    this(new LocalStore(root));
  }

  public static String commitKey(long version) {
    return DIR + String.format("%020d.json", version);
  }

  public static String checkpointKey(long version) {
    return DIR + String.format("%020d.checkpoint.parquet", version);
  }

  public static String lastCheckpointKey() {
    return DIR + "_last_checkpoint";
  }

  /** Where commit {@code version} is, for messages. */
  public String commitFile(long version) {
    return store.describe(commitKey(version));
  }

  /** Versions of the commit files present, ascending. */
  public TreeSet<Long> commitVersions() {
    return list(COMMIT);
  }

  /**
   * Versions that have a usable checkpoint, ascending: a classic single-file checkpoint, or a multi-part checkpoint
   * ({@code %020d.checkpoint.%010d.%010d.parquet}) with every one of its parts present. Other files in the log
   * ({@code .crc}, {@code _last_checkpoint}, temporary files) are ignored.
   */
  public TreeSet<Long> checkpointVersions() {
    return listing().checkpointVersions();
  }

  /**
   * The files of the checkpoint at {@code version}: the single file when there is one, else the parts in order;
   * each with its length.
   */
  public List<ObjectInfo> checkpointParts(long version) {
    return listing().checkpointParts(version);
  }

  /** The log directory as one listing (one request to an object store) sees it. */
  public Listing listing() {
    return new Listing(objects());
  }

  /** One listing of the log directory, which answers the questions of loading a table without asking again. */
  public static final class Listing {
    private final List<ObjectInfo> objects;

    private Listing(List<ObjectInfo> objects) {
      this.objects = objects;
    }

    /** As {@link DeltaLog#commitVersions()}. */
    public TreeSet<Long> commitVersions() {
      return versions(objects, COMMIT);
    }

    /** As {@link DeltaLog#checkpointVersions()}. */
    public TreeSet<Long> checkpointVersions() {
      TreeSet<Long> out = versions(objects, CHECKPOINT);
      out.addAll(completeMultiPart(objects).keySet());
      return out;
    }

    /** As {@link DeltaLog#checkpointParts(long)}. */
    public List<ObjectInfo> checkpointParts(long version) {
      return DeltaLog.checkpointParts(objects, version);
    }

    /** The modification time of commit {@code version} (its commit time), or 0 when the listing has none. */
    public long commitTimestamp(long version) {
      String key = commitKey(version);
      for (ObjectInfo o : objects) {
        if (o.key().equals(key)) {
          return o.lastModifiedMillis();
        }
      }
      return 0;
    }
  }

  private static List<ObjectInfo> checkpointParts(List<ObjectInfo> objects, long version) {
    String single = checkpointKey(version);
    for (ObjectInfo o : objects) {
      if (o.key().equals(single)) {
        return List.of(o);
      }
    }
    Integer parts = completeMultiPart(objects).get(version);
    if (parts == null) {
      return List.of(new ObjectInfo(single, -1, 0));
    }
    Map<String, ObjectInfo> byKey = new HashMap<>();
    objects.forEach(o -> byKey.put(o.key(), o));
    List<ObjectInfo> out = new ArrayList<>(parts);
    for (int i = 1; i <= parts; i++) {
      out.add(byKey.get(DIR + String.format("%020d.checkpoint.%010d.%010d.parquet", version, i, parts)));
    }
    return out;
  }

  /** Version to part count of the multi-part checkpoints whose parts are all present (a writer may have died). */
  private static Map<Long, Integer> completeMultiPart(List<ObjectInfo> objects) {
    Map<Long, Map<Integer, Set<Integer>>> seen = new HashMap<>();
    for (ObjectInfo o : objects) {
      Matcher m = CHECKPOINT_PART.matcher(name(o));
      if (m.matches()) {
        int part = Integer.parseInt(m.group(2));
        int parts = Integer.parseInt(m.group(3));
        if (part >= 1 && part <= parts) {
          seen.computeIfAbsent(Long.parseLong(m.group(1)), v -> new HashMap<>())
              .computeIfAbsent(parts, n -> new HashSet<>()).add(part);
        }
      }
    }
    Map<Long, Integer> out = new HashMap<>();
    seen.forEach((version, byCount) -> byCount.forEach((parts, present) -> {
      if (present.size() == parts) {
        out.put(version, parts);
      }
    }));
    return out;
  }

  private TreeSet<Long> list(Pattern p) {
    return versions(objects(), p);
  }

  private static TreeSet<Long> versions(List<ObjectInfo> objects, Pattern p) {
    TreeSet<Long> out = new TreeSet<>();
    for (ObjectInfo o : objects) {
      Matcher m = p.matcher(name(o));
      if (m.matches()) {
        out.add(Long.parseLong(m.group(1)));
      }
    }
    return out;
  }

  /** The object's name in the log directory (its key past {@code _delta_log/}). */
  private static String name(ObjectInfo o) {
    return o.key().substring(DIR.length());
  }

  /** The objects directly in the log directory. */
  private List<ObjectInfo> objects() {
    try {
      List<ObjectInfo> out = new ArrayList<>();
      for (ObjectInfo o : store.list(DIR, null)) {
        if (o.key().indexOf('/', DIR.length()) < 0) {
          out.add(o);
        }
      }
      return out;
    } catch (IOException e) {
      throw TableErrors.io("list the log directory", store.describe(DIR), e);
    }
  }

  public boolean commitExists(long version) {
    try {
      return store.head(commitKey(version)).isPresent();
    } catch (IOException e) {
      throw TableErrors.io("look up the commit file", commitFile(version), e);
    }
  }

  public long commitTimestamp(long version) {
    try {
      return store.head(commitKey(version)).orElseThrow(() -> TableErrors.missingCommit(commitFile(version)))
          .lastModifiedMillis();
    } catch (IOException e) {
      throw TableErrors.io("read the commit time of", commitFile(version), e);
    }
  }

  /**
   * The actions of one commit. Throws a {@link TableException} naming the file when a line is not a valid action,
   * or when the commitInfo's action count shows the file was truncated.
   */
  public List<Action> readCommit(long version) {
    String file = commitFile(version);
    List<String> lines;
    try {
      lines = new String(store.read(commitKey(version)), StandardCharsets.UTF_8).lines().toList();
    } catch (NoSuchFileException e) {
      throw TableErrors.missingCommit(file);
    } catch (IOException e) {
      throw TableErrors.io("read commit file", file, e);
    }
    List<Action> actions = new ArrayList<>(lines.size());
    long declared = -1;
    long counted = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      Action a;
      try {
        a = ActionCodec.fromJson(line);
      } catch (RuntimeException e) {
        throw TableErrors.corruptCommit(file, i + 1, e);
      }
      if (a instanceof CommitInfo ci) {
        if (ci.actionCount() >= 0) {
          declared = ci.actionCount();
        }
      } else {
        counted++;
      }
      if (a != null) {
        actions.add(a);
      }
    }
    if (actions.isEmpty() && counted == 0 && declared < 0) {
      throw TableErrors.corruptCommit(file, 1, new IllegalArgumentException("the file holds no action"));
    }
    if (declared >= 0 && declared != counted) {
      throw TableErrors.truncatedCommit(file, declared, counted);
    }
    return actions;
  }

  /**
   * Creates commit file {@code version} only if it does not exist yet (the store's atomic put-if-absent: of several
   * writers of the same version exactly one succeeds). A local table's file gets {@code timestampMillis} as its
   * modification time, the commit time time travel uses; an object store keeps its own.
   *
   * @return false when the version was already taken (nothing was written)
   * @throws io.dimstream.table.CommitStateUnknownException when the outcome cannot be known
   */
  public boolean putIfAbsent(long version, List<String> lines, long timestampMillis) {
    String target = commitFile(version);
    StringBuilder sb = new StringBuilder();
    for (String l : lines) {
      sb.append(l).append('\n');
    }
    byte[] content;
    try {
      ByteBuffer b = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(sb));
      content = new byte[b.remaining()];
      b.get(content);
    } catch (CharacterCodingException e) {
      throw TableErrors.unencodableCommit(target, e);
    }
    try {
      return store.putIfAbsent(commitKey(version), content, timestampMillis);
    } catch (PutOutcomeUnknownException e) {
      throw TableErrors.commitStateUnknown(target, e);
    } catch (IOException e) {
      throw TableErrors.io("write the commit file", target, e);
    }
  }

  /**
   * Writes a file that may be replaced as a whole (checkpoint, _last_checkpoint) from a finished local file. A
   * checksum file Hadoop's local file system left beside the old file ({@code .<name>.crc}, as Spark writes them) is
   * deleted first: it would no longer match, and Spark and Delta Kernel would then refuse to read the new file. Only
   * Hadoop's local file system writes or checks them, so an object store is spared the request.
   */
  public void replace(String key, Path staged) throws IOException {
    if (store.location().isLocal()) {
      int slash = key.lastIndexOf('/');
      store.delete(key.substring(0, slash + 1) + "." + key.substring(slash + 1) + ".crc");
    }
    store.putFile(key, staged);
  }

  /** Deletes a key, ignoring failures: a leftover file no commit references is harmless and vacuum removes it. */
  public static void deleteQuietly(ObjectStore store, String key) {
    try {
      store.delete(key);
    } catch (IOException ignored) {
      // see above
    }
  }
}
