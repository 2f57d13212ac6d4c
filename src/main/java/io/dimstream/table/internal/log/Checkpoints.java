package io.dimstream.table.internal.log;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.table.internal.TableErrors;
import io.dimstream.table.internal.actions.ActionCodec;
import io.dimstream.table.internal.actions.AddFile;
import io.dimstream.table.internal.actions.Metadata;
import io.dimstream.table.internal.actions.Protocol;
import io.dimstream.table.internal.actions.RemoveFile;
import io.dimstream.table.internal.actions.SetTransaction;
import io.dimstream.table.internal.dv.DeletionVectorDescriptor;
import io.dimstream.table.internal.files.Int96;
import io.dimstream.table.internal.files.PlainCodecFactory;
import io.dimstream.table.internal.files.StoreInputFile;
import io.dimstream.storage.ObjectInfo;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Parquet checkpoints: one row per action, a nullable struct column per action type (protocol, metaData, txn, add
 * with its tags, remove; never commitInfo). Writes classic single-file checkpoints
 * ({@code %020d.checkpoint.parquet}) plus {@code _last_checkpoint}; reads those and multi-part ones, with JSON
 * {@code stats} or only {@code stats_parsed}.
 */
public final class Checkpoints {
  private static final Schema STRING = SchemaBuilder.builder().stringBuilder()
      .prop(GenericData.STRING_PROP, "String").endString();
  private static final Schema STRING_MAP = Schema.createMap(STRING);
  private static final Schema TXN = SchemaBuilder.record("txn").namespace("delta.checkpoint").fields()
      .name("appId").type(STRING).noDefault()
      .requiredLong("version")
      .optionalLong("lastUpdated")
      .endRecord();
  private static final Schema DELETION_VECTOR = SchemaBuilder.record("deletionVector").namespace("delta.checkpoint")
      .fields()
      .name("storageType").type(STRING).noDefault()
      .name("pathOrInlineDv").type(STRING).noDefault()
      .optionalInt("offset")
      .requiredInt("sizeInBytes")
      .requiredLong("cardinality")
      .endRecord();
  private static final Schema ADD = SchemaBuilder.record("add").namespace("delta.checkpoint").fields()
      .name("path").type(STRING).noDefault()
      .name("partitionValues").type(STRING_MAP).noDefault()
      .requiredLong("size")
      .requiredLong("modificationTime")
      .requiredBoolean("dataChange")
      .name("stats").type(nullable(STRING)).withDefault(null)
      .name("deletionVector").type(nullable(DELETION_VECTOR)).withDefault(null)
      .name("tags").type(nullable(STRING_MAP)).withDefault(null)
      .endRecord();
  private static final Schema REMOVE = SchemaBuilder.record("remove").namespace("delta.checkpoint").fields()
      .name("path").type(STRING).noDefault()
      .optionalLong("deletionTimestamp")
      .requiredBoolean("dataChange")
      .optionalBoolean("extendedFileMetadata")
      .name("partitionValues").type(nullable(STRING_MAP)).withDefault(null)
      .optionalLong("size")
      .name("deletionVector").type(nullable(DELETION_VECTOR)).withDefault(null)
      .endRecord();
  private static final Schema FORMAT = SchemaBuilder.record("format").namespace("delta.checkpoint").fields()
      .name("provider").type(STRING).noDefault()
      .name("options").type(STRING_MAP).noDefault()
      .endRecord();
  private static final Schema METADATA = SchemaBuilder.record("metaData").namespace("delta.checkpoint").fields()
      .name("id").type(STRING).noDefault()
      .name("name").type(nullable(STRING)).withDefault(null)
      .name("description").type(nullable(STRING)).withDefault(null)
      .name("format").type(FORMAT).noDefault()
      .name("schemaString").type(STRING).noDefault()
      .name("partitionColumns").type(Schema.createArray(STRING)).noDefault()
      .name("configuration").type(STRING_MAP).noDefault()
      .optionalLong("createdTime")
      .endRecord();
  private static final Schema PROTOCOL = SchemaBuilder.record("protocol").namespace("delta.checkpoint").fields()
      .requiredInt("minReaderVersion")
      .requiredInt("minWriterVersion")
      .name("readerFeatures").type(nullable(Schema.createArray(STRING))).withDefault(null)
      .name("writerFeatures").type(nullable(Schema.createArray(STRING))).withDefault(null)
      .endRecord();
  public static final Schema CHECKPOINT = SchemaBuilder.record("checkpoint").namespace("delta.checkpoint").fields()
      .name("txn").type(nullable(TXN)).withDefault(null)
      .name("add").type(nullable(ADD)).withDefault(null)
      .name("remove").type(nullable(REMOVE)).withDefault(null)
      .name("metaData").type(nullable(METADATA)).withDefault(null)
      .name("protocol").type(nullable(PROTOCOL)).withDefault(null)
      .endRecord();

  private Checkpoints() {}

  private static Schema nullable(Schema s) {
    return Schema.createUnion(Schema.create(Schema.Type.NULL), s);
  }

  /**
   * Writes the checkpoint of {@code state} (with the tombstones {@link CheckpointTombstones} keeps: deleted after
   * {@code tombstoneCutoffMillis}, and only those that keep a file from VACUUM) and then
   * {@code _last_checkpoint}; both via a temporary file and an atomic rename, so a reader never sees half a file.
   */
  public static void write(DeltaLog log, TableState state, long tombstoneCutoffMillis) {
    String key = DeltaLog.checkpointKey(state.version);
    String target = log.store.describe(key);
    Path tmp = null;
    long rows = 0;
    try {
      tmp = log.store.stagingFile(key);
      PlainParquetConfiguration conf = new PlainParquetConfiguration();
      conf.set("parquet.avro.write-old-list-structure", "false");
      try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(tmp))
          .withSchema(CHECKPOINT)
          .withConf(conf)
          .withDataModel(GenericData.get())
          .withCodecFactory(PlainCodecFactory.INSTANCE)
          .withCompressionCodec(CompressionCodecName.SNAPPY)
          .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
          .build()) {
        w.write(row("protocol", protocol(state.protocol)));
        w.write(row("metaData", metadata(state.metadata)));
        rows += 2;
        for (SetTransaction t : state.txns.values()) {
          w.write(row("txn", txn(t)));
          rows++;
        }
        for (AddFile a : state.adds.values()) {
          w.write(row("add", add(a)));
          rows++;
        }
        for (RemoveFile r : CheckpointTombstones.kept(state, tombstoneCutoffMillis)) {
          w.write(row("remove", remove(r)));
          rows++;
        }
      }
      log.replace(key, tmp);
      ObjectNode last = ActionCodec.JSON.createObjectNode();
      last.put("version", state.version);
      last.put("size", rows);
      log.store.put(DeltaLog.lastCheckpointKey(),
          ActionCodec.JSON.writeValueAsString(last).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw TableErrors.io("write checkpoint", target, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // a leftover temporary file is harmless: readers ignore it and vacuum never touches the log
        }
      }
    }
  }

  /** Replays the files of one checkpoint (one file, or every part of a multi-part one) into a builder. */
  public static TableState.Builder read(DeltaLog log, List<ObjectInfo> parts) {
    TableState.Builder b = new TableState.Builder();
    for (ObjectInfo part : parts) {
      read(new StoreInputFile(log.store, part.key(), part.size()), b);
    }
    return b;
  }

  /**
   * Replays one checkpoint file into {@code b}; errors name the file. Columns other engines leave out or add (no
   * {@code stats}, {@code stats_parsed}, {@code tags}, {@code deletionVector}, ...) are tolerated: a field missing
   * from the file reads as absent.
   */
  private static void read(StoreInputFile file, TableState.Builder b) {
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    conf.set(Int96.READ_AS_FIXED, "true");
    try (ParquetReader<GenericRecord> r =
             AvroParquetReader.<GenericRecord>builder(file, conf)
                 .withDataModel(GenericData.get())
                 .withCodecFactory(PlainCodecFactory.INSTANCE)
                 .build()) {
      for (GenericRecord rec = r.read(); rec != null; rec = r.read()) {
        GenericRecord x;
        if ((x = record(rec, "protocol")) != null) {
          b.apply(new Protocol(((Number) get(x, "minReaderVersion")).intValue(),
              ((Number) get(x, "minWriterVersion")).intValue(), strings(get(x, "readerFeatures")),
              strings(get(x, "writerFeatures"))));
        } else if ((x = record(rec, "metaData")) != null) {
          List<String> parts = strings(get(x, "partitionColumns"));
          b.apply(new Metadata(str(get(x, "id")), str(get(x, "name")), str(get(x, "schemaString")),
              parts == null ? List.of() : parts, map(get(x, "configuration")), longOr(get(x, "createdTime"), 0)));
        } else if ((x = record(rec, "txn")) != null) {
          b.apply(new SetTransaction(str(get(x, "appId")), (Long) get(x, "version"),
              longOr(get(x, "lastUpdated"), 0)));
        } else if ((x = record(rec, "add")) != null) {
          String stats = str(get(x, "stats"));
          if (stats == null && get(x, "stats_parsed") instanceof GenericRecord parsed) {
            stats = ParsedStats.toJson(parsed);
          }
          b.apply(new AddFile(str(get(x, "path")), map(get(x, "partitionValues")), (Long) get(x, "size"),
              (Long) get(x, "modificationTime"), (Boolean) get(x, "dataChange"), stats,
              deletionVector(get(x, "deletionVector")), map(get(x, "tags"))));
        } else if ((x = record(rec, "remove")) != null) {
          b.apply(new RemoveFile(str(get(x, "path")), longOr(get(x, "deletionTimestamp"), 0),
              (Boolean) get(x, "dataChange"), map(get(x, "partitionValues")), longOr(get(x, "size"), 0),
              deletionVector(get(x, "deletionVector"))));
        }
      }
    } catch (IOException | RuntimeException e) {
      throw TableErrors.unreadableCheckpoint(file, e);
    }
  }

  /** The field's value, or null when the file's schema has no such field. */
  private static Object get(GenericRecord rec, String name) {
    return rec.getSchema().getField(name) == null ? null : rec.get(name);
  }

  private static GenericRecord record(GenericRecord rec, String name) {
    return (GenericRecord) get(rec, name);
  }

  private static long longOr(Object v, long absent) {
    return v == null ? absent : ((Number) v).longValue();
  }

  private static List<String> strings(Object v) {
    if (!(v instanceof Collection<?> c)) {
      return null;
    }
    List<String> out = new ArrayList<>(c.size());
    for (Object x : c) {
      // Spark writes Parquet's three-level lists (a repeated group holding one 'element'), which parquet-avro reads
      // as records of that one field; ours are two-level and read as the strings themselves
      Object value = x instanceof GenericRecord r && r.getSchema().getFields().size() == 1 ? r.get(0) : x;
      out.add(String.valueOf(value));
    }
    return out;
  }

  private static DeletionVectorDescriptor deletionVector(Object v) {
    if (!(v instanceof GenericRecord dv) || get(dv, "storageType") == null) {
      return null;
    }
    Object offset = get(dv, "offset");
    return new DeletionVectorDescriptor(str(get(dv, "storageType")), str(get(dv, "pathOrInlineDv")),
        offset == null ? null : ((Number) offset).intValue(), ((Number) get(dv, "sizeInBytes")).intValue(),
        ((Number) get(dv, "cardinality")).longValue());
  }

  private static GenericRecord deletionVector(DeletionVectorDescriptor dv) {
    if (dv == null) {
      return null;
    }
    GenericData.Record r = new GenericData.Record(DELETION_VECTOR);
    r.put("storageType", dv.storageType());
    r.put("pathOrInlineDv", dv.pathOrInlineDv());
    r.put("offset", dv.offset());
    r.put("sizeInBytes", dv.sizeInBytes());
    r.put("cardinality", dv.cardinality());
    return r;
  }

  private static GenericRecord row(String field, GenericRecord action) {
    GenericData.Record r = new GenericData.Record(CHECKPOINT);
    r.put(field, action);
    return r;
  }

  private static GenericRecord protocol(Protocol p) {
    GenericData.Record r = new GenericData.Record(PROTOCOL);
    r.put("minReaderVersion", p.minReaderVersion());
    r.put("minWriterVersion", p.minWriterVersion());
    r.put("readerFeatures", p.readerFeatures());
    r.put("writerFeatures", p.writerFeatures());
    return r;
  }

  private static GenericRecord metadata(Metadata m) {
    GenericData.Record format = new GenericData.Record(FORMAT);
    format.put("provider", "parquet");
    format.put("options", Map.of());
    GenericData.Record r = new GenericData.Record(METADATA);
    r.put("id", m.id());
    r.put("name", m.name());
    r.put("format", format);
    r.put("schemaString", m.schemaString());
    r.put("partitionColumns", m.partitionColumns());
    r.put("configuration", m.configuration());
    r.put("createdTime", m.createdTime());
    return r;
  }

  private static GenericRecord txn(SetTransaction t) {
    GenericData.Record r = new GenericData.Record(TXN);
    r.put("appId", t.appId());
    r.put("version", t.version());
    r.put("lastUpdated", t.lastUpdated());
    return r;
  }

  private static GenericRecord add(AddFile a) {
    GenericData.Record r = new GenericData.Record(ADD);
    r.put("path", a.path());
    r.put("partitionValues", a.partitionValues());
    r.put("size", a.size());
    r.put("modificationTime", a.modificationTime());
    r.put("dataChange", a.dataChange());
    r.put("stats", a.stats());
    r.put("deletionVector", deletionVector(a.deletionVector()));
    r.put("tags", a.tags().isEmpty() ? null : a.tags());
    return r;
  }

  private static GenericRecord remove(RemoveFile x) {
    GenericData.Record r = new GenericData.Record(REMOVE);
    r.put("path", x.path());
    r.put("deletionTimestamp", x.deletionTimestamp());
    r.put("dataChange", x.dataChange());
    r.put("extendedFileMetadata", true);
    r.put("partitionValues", x.partitionValues());
    r.put("size", x.size());
    r.put("deletionVector", deletionVector(x.deletionVector()));
    return r;
  }

  private static String str(Object o) {
    return o == null ? null : o.toString();
  }

  private static Map<String, String> map(Object o) {
    Map<String, String> out = new LinkedHashMap<>();
    if (o instanceof Map<?, ?> m) {
      m.forEach((k, v) -> {
        if (v != null) {
          out.put(k.toString(), v.toString());
        }
      });
    }
    return out;
  }
}
