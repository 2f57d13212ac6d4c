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
import io.dimstream.table.internal.files.PlainCodecFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Classic single-file Parquet checkpoints ({@code %020d.checkpoint.parquet}): one row per action, a nullable struct
 * column per action type (protocol, metaData, txn, add, remove; never commitInfo), plus {@code _last_checkpoint}.
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
  private static final Schema DV = SchemaBuilder.record("deletionVector").namespace("delta.checkpoint").fields()
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
      .name("deletionVector").type(nullable(DV)).withDefault(null)
      .endRecord();
  private static final Schema REMOVE = SchemaBuilder.record("remove").namespace("delta.checkpoint").fields()
      .name("path").type(STRING).noDefault()
      .optionalLong("deletionTimestamp")
      .requiredBoolean("dataChange")
      .optionalBoolean("extendedFileMetadata")
      .name("partitionValues").type(nullable(STRING_MAP)).withDefault(null)
      .optionalLong("size")
      .name("deletionVector").type(nullable(DV)).withDefault(null)
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
   * Writes the checkpoint of {@code state} (tombstones deleted after {@code tombstoneCutoffMillis} only) and then
   * {@code _last_checkpoint}; both via a temporary file and an atomic rename, so a reader never sees half a file.
   */
  public static void write(DeltaLog log, TableState state, long tombstoneCutoffMillis) {
    Path target = log.checkpointFile(state.version);
    Path tmp = log.dir.resolve("." + UUID.randomUUID() + ".checkpoint.parquet.tmp");
    long rows = 0;
    try {
      PlainParquetConfiguration conf = new PlainParquetConfiguration();
      conf.set("parquet.avro.write-old-list-structure", "false");
      try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(tmp))
          .withSchema(CHECKPOINT)
          .withConf(conf)
          .withDataModel(GenericData.get())
          .withCodecFactory(PlainCodecFactory.INSTANCE)
          .withCompressionCodec(CompressionCodecName.SNAPPY)
          .withWriteMode(ParquetFileWriter.Mode.CREATE)
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
        for (RemoveFile r : state.removes.values()) {
          if (r.deletionTimestamp() > tombstoneCutoffMillis) {
            w.write(row("remove", remove(r)));
            rows++;
          }
        }
      }
      log.replaceAtomically(target, tmp);
      ObjectNode last = ActionCodec.JSON.createObjectNode();
      last.put("version", state.version);
      last.put("size", rows);
      Path lastTmp = log.dir.resolve("." + UUID.randomUUID() + "._last_checkpoint.tmp");
      Files.writeString(lastTmp, ActionCodec.JSON.writeValueAsString(last));
      log.replaceAtomically(log.lastCheckpointFile(), lastTmp);
    } catch (IOException e) {
      DeltaLog.deleteQuietly(tmp);
      throw TableErrors.io("write checkpoint", target, e);
    }
  }

  /** Replays a checkpoint file into a builder; errors name the file. */
  public static TableState.Builder read(Path file) {
    TableState.Builder b = new TableState.Builder();
    try (ParquetReader<GenericRecord> r =
             AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file), new PlainParquetConfiguration())
                 .withDataModel(GenericData.get())
                 .withCodecFactory(PlainCodecFactory.INSTANCE)
                 .build()) {
      for (GenericRecord rec = r.read(); rec != null; rec = r.read()) {
        GenericRecord x;
        if ((x = field(rec, "protocol")) != null) {
          b.apply(new Protocol(((Number) x.get("minReaderVersion")).intValue(),
              ((Number) x.get("minWriterVersion")).intValue(), strings(x, "readerFeatures"),
              strings(x, "writerFeatures")));
        } else if ((x = field(rec, "metaData")) != null) {
          List<String> parts = new ArrayList<>();
          Object pc = x.get("partitionColumns");
          if (pc instanceof List<?> l) {
            l.forEach(p -> parts.add(String.valueOf(p)));
          }
          b.apply(new Metadata(str(x.get("id")), str(x.get("name")), str(x.get("schemaString")), parts,
              map(x.get("configuration")), x.get("createdTime") == null ? 0 : (Long) x.get("createdTime")));
        } else if ((x = field(rec, "txn")) != null) {
          b.apply(new SetTransaction(str(x.get("appId")), (Long) x.get("version"),
              x.get("lastUpdated") == null ? 0 : (Long) x.get("lastUpdated")));
        } else if ((x = field(rec, "add")) != null) {
          b.apply(new AddFile(str(x.get("path")), map(x.get("partitionValues")), (Long) x.get("size"),
              (Long) x.get("modificationTime"), (Boolean) x.get("dataChange"), str(x.get("stats")), dv(x)));
        } else if ((x = field(rec, "remove")) != null) {
          b.apply(new RemoveFile(str(x.get("path")),
              x.get("deletionTimestamp") == null ? 0 : (Long) x.get("deletionTimestamp"),
              (Boolean) x.get("dataChange"), map(x.get("partitionValues")),
              x.get("size") == null ? 0 : (Long) x.get("size"), dv(x)));
        }
      }
    } catch (IOException | RuntimeException e) {
      throw TableErrors.unreadableCheckpoint(file, e);
    }
    return b;
  }

  private static GenericRecord field(GenericRecord rec, String name) {
    return rec.getSchema().getField(name) == null ? null : (GenericRecord) rec.get(name);
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
    r.put("deletionVector", dv(a.deletionVector()));
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
    r.put("deletionVector", dv(x.deletionVector()));
    return r;
  }

  private static GenericRecord dv(DeletionVectorDescriptor d) {
    if (d == null) {
      return null;
    }
    GenericData.Record r = new GenericData.Record(DV);
    r.put("storageType", d.storageType());
    r.put("pathOrInlineDv", d.pathOrInlineDv());
    r.put("offset", d.offset());
    r.put("sizeInBytes", d.sizeInBytes());
    r.put("cardinality", d.cardinality());
    return r;
  }

  /** The deletion vector of a checkpoint's add or remove record; null when the schema or the row has none. */
  private static DeletionVectorDescriptor dv(GenericRecord action) {
    if (action.getSchema().getField("deletionVector") == null || action.get("deletionVector") == null) {
      return null;
    }
    GenericRecord d = (GenericRecord) action.get("deletionVector");
    Object offset = d.get("offset");
    return new DeletionVectorDescriptor(str(d.get("storageType")), str(d.get("pathOrInlineDv")),
        offset == null ? null : ((Number) offset).intValue(), ((Number) d.get("sizeInBytes")).intValue(),
        ((Number) d.get("cardinality")).longValue());
  }

  private static List<String> strings(GenericRecord rec, String field) {
    if (rec.getSchema().getField(field) == null || !(rec.get(field) instanceof List<?> l)) {
      return null;
    }
    List<String> out = new ArrayList<>();
    l.forEach(x -> out.add(String.valueOf(x)));
    return out;
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
