package io.dimstream.table.internal.log;

import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.Action;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.CommitInfo;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code _delta_log} directory: commit and checkpoint file names, reading commits, put-if-absent writes. */
public final class DeltaLog {
  private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");
  private static final Pattern CHECKPOINT = Pattern.compile("(\\d{20})\\.checkpoint\\.parquet");
  private static final Pattern CHECKPOINT_PART =
      Pattern.compile("(\\d{20})\\.checkpoint\\.(\\d{10})\\.(\\d{10})\\.parquet");

  public final Path root;
  public final Path dir;

  public DeltaLog(Path root) {
    this.root = root;
    this.dir = root.resolve("_delta_log");
  }

  public Path commitFile(long version) {
    return dir.resolve(String.format("%020d.json", version));
  }

  public Path checkpointFile(long version) {
    return dir.resolve(String.format("%020d.checkpoint.parquet", version));
  }

  public Path lastCheckpointFile() {
    return dir.resolve("_last_checkpoint");
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
    TreeSet<Long> out = list(CHECKPOINT);
    out.addAll(completeMultiPart().keySet());
    return out;
  }

  /** The files of the checkpoint at {@code version}: the single file when there is one, else the parts in order. */
  public List<Path> checkpointParts(long version) {
    if (Files.exists(checkpointFile(version))) {
      return List.of(checkpointFile(version));
    }
    Integer parts = completeMultiPart().get(version);
    if (parts == null) {
      return List.of(checkpointFile(version));
    }
    List<Path> out = new ArrayList<>(parts);
    for (int i = 1; i <= parts; i++) {
      out.add(dir.resolve(String.format("%020d.checkpoint.%010d.%010d.parquet", version, i, parts)));
    }
    return out;
  }

  /** Version to part count of the multi-part checkpoints whose parts are all present (a writer may have died). */
  private Map<Long, Integer> completeMultiPart() {
    Map<Long, Map<Integer, Set<Integer>>> seen = new HashMap<>();
    for (String name : names()) {
      Matcher m = CHECKPOINT_PART.matcher(name);
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
    TreeSet<Long> out = new TreeSet<>();
    for (String name : names()) {
      Matcher m = p.matcher(name);
      if (m.matches()) {
        out.add(Long.parseLong(m.group(1)));
      }
    }
    return out;
  }

  private List<String> names() {
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path f : s) {
        out.add(f.getFileName().toString());
      }
    } catch (IOException e) {
      throw TableErrors.io("list the log directory", dir, e);
    }
    return out;
  }

  public boolean commitExists(long version) {
    return Files.exists(commitFile(version));
  }

  public long commitTimestamp(long version) {
    try {
      return Files.getLastModifiedTime(commitFile(version)).toMillis();
    } catch (NoSuchFileException e) {
      throw TableErrors.missingCommit(commitFile(version));
    } catch (IOException e) {
      throw TableErrors.io("read the commit time of", commitFile(version), e);
    }
  }

  /**
   * The actions of one commit. Throws a {@link TableException} naming the file when a line is not a valid action,
   * or when the commitInfo's action count shows the file was truncated.
   */
  public List<Action> readCommit(long version) {
    Path file = commitFile(version);
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
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
   * Creates commit file {@code version} only if it does not exist yet: writes a temporary file, then hard-links it
   * to the final name, which fails atomically when another writer got there first. Sets the file's modification
   * time to {@code timestampMillis}, the commit time time travel uses.
   *
   * @return false when the version was already taken (nothing was written)
   * @throws CommitStateUnknownException when the outcome cannot be known
   */
  public boolean putIfAbsent(long version, List<String> lines, long timestampMillis) {
    Path target = commitFile(version);
    Path tmp = dir.resolve("." + String.format("%020d", version) + "." + UUID.randomUUID() + ".json.tmp");
    try {
      Files.createDirectories(dir);
      StringBuilder sb = new StringBuilder();
      for (String l : lines) {
        sb.append(l).append('\n');
      }
      Files.writeString(tmp, sb, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      Files.setLastModifiedTime(tmp, FileTime.fromMillis(timestampMillis));
    } catch (CharacterCodingException e) {
      deleteQuietly(tmp);
      throw TableErrors.unencodableCommit(target, e);
    } catch (IOException e) {
      deleteQuietly(tmp);
      throw TableErrors.io("write a temporary commit file", tmp, e);
    }
    try {
      Files.createLink(target, tmp);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (UnsupportedOperationException e) {
      return createExclusively(target, tmp);
    } catch (IOException e) {
      throw TableErrors.commitStateUnknown(target, e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  /** Fallback for file systems without hard links: an exclusive create, then the content. */
  private boolean createExclusively(Path target, Path tmp) {
    try {
      byte[] content = Files.readAllBytes(tmp);
      Files.write(target, content, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      Files.setLastModifiedTime(target, Files.getLastModifiedTime(tmp));
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      throw TableErrors.commitStateUnknown(target, e);
    }
  }

  /**
   * Writes a file that may be replaced as a whole (checkpoint, _last_checkpoint): temp file then atomic rename. A
   * checksum file Hadoop's local file system left beside the old file ({@code .<name>.crc}, as Spark writes them) is
   * deleted first: it would no longer match, and Spark and Delta Kernel would then refuse to read the new file.
   */
  public void replaceAtomically(Path target, Path written) throws IOException {
    Files.deleteIfExists(target.resolveSibling("." + target.getFileName() + ".crc"));
    try {
      Files.move(written, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(written, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  public static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // a leftover temporary file is harmless: readers ignore it and vacuum never touches the log
    }
  }
}
