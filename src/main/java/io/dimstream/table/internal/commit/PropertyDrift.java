package io.dimstream.table.internal.commit;

import io.dimstream.storage.ObjectStore;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.log.TableState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The properties a spec asks for that an existing table does not have, as warnings: properties shape a table when it
 * is created, and opening a table never changes its layout behind the user's back.
 */
public final class PropertyDrift {
  private static final Map<String, Function<Map<String, String>, Object>> READERS = Map.of(
      TableProperties.BUCKETS, TableProperties::buckets,
      TableProperties.CODEC, TableProperties::codec,
      TableProperties.CURRENT_CODEC, TableProperties::currentCodec,
      TableProperties.TARGET_FILE_ROWS, TableProperties::targetFileRows,
      TableProperties.CHECKPOINT_INTERVAL, TableProperties::checkpointInterval,
      TableProperties.TOMBSTONE_RETENTION, TableProperties::tombstoneRetention,
      TableProperties.COMPACTION_DELETED_FRACTION, TableProperties::compactionDeletedFraction,
      TableProperties.COMPACTION_SMALL_FILE_ROWS, TableProperties::compactionSmallFileRows,
      TableProperties.COMPACTION_ROWS_PER_CYCLE, TableProperties::compactionRowsPerCycle,
      TableProperties.ENABLE_CHANGE_DATA_FEED, TableProperties::changeDataFeed);

  private PropertyDrift() {}

  /**
   * One warning per property of {@code asked} whose value differs from what the table at {@code root} uses; each
   * says what differs, that the table is left as it is, and the command that changes it where one exists.
   */
  public static List<String> warnings(ObjectStore root, TableState state, Map<String, String> asked) {
    List<String> out = new ArrayList<>();
    Map<String, String> conf = state.metadata.configuration();
    for (Map.Entry<String, String> e : asked.entrySet()) {
      String key = e.getKey();
      if (key.equals(TableProperties.ENABLE_DELETION_VECTORS)) {
        deletionVectors(root, state, e.getValue(), out);
        continue;
      }
      Function<Map<String, String>, Object> reader = READERS.get(key);
      if (reader == null || Objects.equals(reader.apply(Map.of(key, e.getValue())), reader.apply(conf))) {
        continue;
      }
      String has = conf.containsKey(key) ? key + "=" + conf.get(key) : "no " + key + " (default " + reader.apply(Map.of())
          + ")";
      out.add(String.format("%s: the spec's output.table_properties asks for %s=%s, but the table has %s; the table "
          + "keeps its own value, because table properties are applied only when a table is created. Fix: set it on "
          + "the table with another Delta writer (Spark: ALTER TABLE delta.`%s` SET TBLPROPERTIES ('%s' = '%s')), "
          + "write the dimension to a new table (service.table_path), or change the spec to the table's value",
          root, key, e.getValue(), has, root, key, e.getValue()));
    }
    return out;
  }

  private static void deletionVectors(ObjectStore root, TableState state, String asked, List<String> out) {
    boolean wanted = TableProperties.deletionVectorsEnabled(Map.of(TableProperties.ENABLE_DELETION_VECTORS, asked));
    boolean mergeOnRead = ChangeCommit.mergeOnRead(state);
    if (wanted == mergeOnRead) {
      return;
    }
    String protocol = state.protocol.minReaderVersion() + " / " + state.protocol.minWriterVersion();
    if (wanted) {
      out.add(String.format("%s: the spec's output.table_properties asks for delta.enableDeletionVectors=true "
          + "(merge-on-read), but the table is copy-on-write (protocol %s, no deletion vectors); it is left as it is, "
          + "because opening a table never changes its layout. Fix: run `dimstream table upgrade --table %s "
          + "--deletion-vectors` (one commit; readers must then apply deletion vectors), or remove the property "
          + "from the spec", root, protocol, root));
    } else {
      out.add(String.format("%s: the spec's output.table_properties asks for delta.enableDeletionVectors=false "
          + "(copy-on-write), but the table is merge-on-read (protocol %s, deletion vectors); it is left as it is. "
          + "Moving a table from deletion vectors back to copy-on-write is not supported. Fix: for readers that "
          + "cannot read deletion vectors, write the dimension to a new table (a new service.table_path, filled by "
          + "`dimstream backfill` or `dimstream run`), or remove the property from the spec", root, protocol));
    }
  }
}
