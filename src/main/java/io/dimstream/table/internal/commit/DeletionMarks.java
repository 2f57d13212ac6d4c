package io.dimstream.table.internal.commit;

import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.Uploads;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import io.dimstream.table.internal.dv.DeletionVectorFiles;
import io.dimstream.table.internal.dv.RoaringBitmapArray;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Rows of existing data files a commit deletes, turned into merged deletion vectors and remove/add pairs. */
final class DeletionMarks {
  private final Map<String, RoaringBitmapArray> byFile = new LinkedHashMap<>();
  private long rows;

  void mark(String path, long position) {
    byFile.computeIfAbsent(path, p -> new RoaringBitmapArray()).add(position);
    rows++;
  }

  long rows() {
    return rows;
  }

  /** Each marked file's path and the positions marked in it. */
  void forEachFile(java.util.function.BiConsumer<String, RoaringBitmapArray> action) {
    byFile.forEach(action);
  }

  boolean isEmpty() {
    return byFile.isEmpty();
  }

  /**
   * Writes the merged DVs (the file's DV, whoever wrote it, plus the new marks; small ones inline, the others in one
   * new DV file) and adds to {@code removed} each marked file as it was and to {@code added} the same path with its
   * new DV; a file whose every row is then deleted is only removed.
   */
  void write(ObjectStore root, Uploads uploads, Collection<AddFile> live, List<AddFile> removed, List<AddFile> added) {
    // one live add per data file: the DV is part of a file's identity in the log, not of its path
    Map<String, AddFile> byPath = new HashMap<>();
    for (AddFile a : live) {
      if (byFile.containsKey(a.path())) {
        byPath.put(a.path(), a);
      }
    }
    List<AddFile> files = new ArrayList<>();
    List<RoaringBitmapArray> dvs = new ArrayList<>();
    for (Map.Entry<String, RoaringBitmapArray> e : byFile.entrySet()) {
      AddFile old = byPath.get(e.getKey());
      RoaringBitmapArray merged = new RoaringBitmapArray();
      if (old.deletionVector() != null) {
        merged.addAll(DeletionVectorFiles.read(root, old.deletionVector()));
      }
      merged.addAll(e.getValue());
      removed.add(old);
      long records = numRecords(old.stats());
      if (records >= 0 && merged.cardinality() >= records) {
        continue;
      }
      files.add(old);
      dvs.add(merged);
    }
    List<DeletionVectorDescriptor> written = DeletionVectorFiles.write(root, uploads, dvs,
        DeletionVectorFiles.DEFAULT_INLINE_LIMIT);
    for (int i = 0; i < files.size(); i++) {
      AddFile old = files.get(i);
      added.add(old.withDeletionVector(written.get(i), looseBounds(old.stats())));
    }
  }

  private static long numRecords(String stats) {
    if (stats == null) {
      return -1;
    }
    try {
      return ActionCodec.JSON.readTree(stats).path("numRecords").asLong(-1);
    } catch (JsonProcessingException e) {
      return -1;
    }
  }

  /** The stats with {@code tightBounds: false}: min/max still bound the rows, but deleted rows may set them. */
  static String looseBounds(String stats) {
    if (stats == null) {
      return null;
    }
    try {
      JsonNode n = ActionCodec.JSON.readTree(stats);
      if (!(n instanceof ObjectNode o)) {
        return stats;
      }
      o.put("tightBounds", false);
      return ActionCodec.JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      return stats;
    }
  }
}
