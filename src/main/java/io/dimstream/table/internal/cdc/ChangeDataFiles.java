package io.dimstream.table.internal.cdc;

import io.dimstream.model.Version;
import io.dimstream.storage.ObjectStore;
import io.dimstream.storage.Uploads;
import io.dimstream.table.internal.actions.AddCDCFile;
import io.dimstream.table.internal.files.DataFiles;
import io.dimstream.table.internal.files.Partition;
import io.dimstream.table.internal.files.TableLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes a commit's change rows to {@code _change_data/<partition>/cdc-<uuid>.<codec>.parquet}, one file per
 * partition ({@code is_current} of each row) that has rows, and gives their {@code cdc} actions.
 */
public final class ChangeDataFiles {
  /** The directory of change data files, relative to the table root. */
  public static final String DIRECTORY = "_change_data";

  private ChangeDataFiles() {}

  /**
   * Writes {@code rows} through {@code uploads} (stored once the caller awaits them). A commit that removes rows must
   * have a {@code cdc} action even when none of its rows changed (readers would otherwise take its removes for
   * deletes): with {@code always} and no rows, one empty file is written.
   */
  public static List<AddCDCFile> write(ObjectStore root, Uploads uploads, TableLayout layout, List<ChangeRow> rows,
      CompressionCodecName codec, boolean always) {
    List<AddCDCFile> out = new ArrayList<>();
    for (Partition p : List.of(layout.current, layout.closed)) {
      List<Version> versions = new ArrayList<>();
      List<String> types = new ArrayList<>();
      for (ChangeRow r : rows) {
        if (r.version().isCurrent() == p.current()) {
          versions.add(r.version());
          types.add(r.type().value());
        }
      }
      if (versions.isEmpty() && !(always && rows.isEmpty() && !p.current())) {
        continue;
      }
      String path = DIRECTORY + "/" + p.directory() + "/cdc-" + UUID.randomUUID() + "."
          + codec.name().toLowerCase(Locale.ROOT) + ".parquet";
      long size = DataFiles.writeChangeData(root, uploads, path, versions, types, layout, codec);
      out.add(new AddCDCFile(path, p.partitionValues(), size));
    }
    return out;
  }
}
