package io.dimstream.table.internal.commit;

import io.dimstream.spec.DimensionSpec;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.TableProperties;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.CommitInfo;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.TableFeatures;
import io.dimstream.table.internal.files.SpecCodec;
import io.dimstream.table.internal.files.TableLayout;
import io.dimstream.table.internal.log.DeltaLog;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes version 0 of a new table: protocol (the one {@link TableFeatures#forNewTable} decides from the metadata:
 * reader 3 / writer 7 listing {@code deletionVectors}, {@code invariants} and {@code appendOnly}, or 1 / 2 when
 * {@code delta.enableDeletionVectors=false}), metaData with the stored spec, and commitInfo.
 */
public final class TableCreation {
  private static final Logger LOG = LoggerFactory.getLogger(TableCreation.class);

  private TableCreation() {}

  /**
   * Validates {@code properties} and writes version 0 with put-if-absent.
   *
   * @throws io.dimstream.table.TableException when the directory already holds a table, or a property is invalid
   */
  public static void create(DeltaLog log, DimensionSpec spec, Map<String, String> properties, long now) {
    if (!log.commitVersions().isEmpty()) {
      throw TableErrors.alreadyExists(log.store);
    }
    Map<String, String> conf = new LinkedHashMap<>(properties);
    conf.put(SpecCodec.PROPERTY, SpecCodec.toJson(spec));
    conf.putIfAbsent(TableProperties.BUCKETS, Integer.toString(TableProperties.buckets(conf)));
    TableProperties.codec(conf);
    TableProperties.currentCodec(conf);
    TableProperties.checkpointInterval(conf);
    TableProperties.tombstoneRetention(conf);
    TableProperties.targetFileRows(conf);
    TableProperties.compactionDeletedFraction(conf);
    TableProperties.compactionSmallFileRows(conf);
    TableProperties.compactionRowsPerCycle(conf);
    boolean dvs = TableProperties.deletionVectorsEnabled(conf);
    conf.put(TableProperties.ENABLE_DELETION_VECTORS, Boolean.toString(dvs));
    TableLayout layout = new TableLayout(spec);
    Metadata md = new Metadata(UUID.randomUUID().toString(), spec.name(), layout.deltaSchemaString(),
        layout.partitionColumns(), conf, now);
    Protocol protocol = TableFeatures.forNewTable(md);
    CommitInfo info = CommitInfo.of(now, "CREATE TABLE",
        Map.of("partitionBy", "[\"" + layout.current.column() + "\"]"), Map.of(), null, 2);
    List<String> lines = List.of(ActionCodec.toJson(info), ActionCodec.toJson(protocol),
        ActionCodec.toJson(md));
    if (!log.putIfAbsent(0, lines, now)) {
      throw TableErrors.alreadyExists(log.store);
    }
    LOG.info("{}: created table version 0 for dimension {}", log.store, spec.name());
  }
}
