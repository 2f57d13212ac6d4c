package io.dimstream.table.internal.files;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.avro.AvroReadSupport;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads some columns of a data file as they are in that file: the projection is cut from the file's own footer
 * schema, by column name, so it matches whatever physical types the file's writer chose (Spark writes every column
 * OPTIONAL and timestamps as INT96 by default, TIMESTAMP_MILLIS or MICROS when told; dimstream writes REQUIRED
 * keys and MICROS). The Avro schema of the records is derived from that projection ({@link #recordSchema}), never
 * taken from an Avro schema a writer stored in the footer, which describes the writer's own types.
 * {@link TableLayout#decoder} turns the records into versions whatever those types are.
 */
final class ColumnProjection extends AvroReadSupport<GenericRecord> {
  /**
   * The footer key of a parquet-avro writer's Avro schema, which the reader takes as the records' schema: it is set
   * to the schema derived from the projection, never left to what a writer stored (that describes its own types).
   */
  private static final String AVRO_SCHEMA_KEY = "parquet.avro.schema";

  /** The most record schemas kept: a table has one per schema its files were written with, and few of those. */
  private static final int MAX_RECORD_SCHEMAS = 64;
  private static final Map<List<Object>, String> RECORD_SCHEMAS = new ConcurrentHashMap<>();

  private final Set<String> columns;

  private ColumnProjection(Set<String> columns) {
    super(GenericData.get());
    this.columns = Set.copyOf(columns);
  }

  /** A reader of the columns named {@code columns} (those the file has) of {@code file}. */
  static ParquetReader.Builder<GenericRecord> reader(InputFile file, ParquetConfiguration conf, Set<String> columns) {
    return new Builder(file, conf, new ColumnProjection(columns));
  }

  /** The read support of {@link #reader}, for a caller that reads row groups itself. */
  static ReadSupport<GenericRecord> support(Set<String> columns) {
    return new ColumnProjection(columns);
  }

  @Override
  public ReadContext init(InitContext context) {
    ReadContext base = super.init(context);
    MessageType file = context.getFileSchema();
    List<Type> kept = file.getFields().stream().filter(f -> columns.contains(f.getName())).toList();
    return new ReadContext(new MessageType(file.getName(), kept), base.getReadSupportMetadata());
  }

  @Override
  public RecordMaterializer<GenericRecord> prepareForRead(ParquetConfiguration configuration,
      Map<String, String> keyValueMetaData, MessageType fileSchema, ReadContext readContext) {
    String records = recordSchemaText(readContext.getRequestedSchema(), configuration.get(Int96.READ_AS_FIXED),
        () -> new AvroSchemaConverter(configuration));
    return super.prepareForRead(configuration, Map.of(AVRO_SCHEMA_KEY, records), fileSchema, readContext);
  }

  @Override
  public RecordMaterializer<GenericRecord> prepareForRead(Configuration configuration,
      Map<String, String> keyValueMetaData, MessageType fileSchema, ReadContext readContext) {
    String records = recordSchemaText(readContext.getRequestedSchema(), configuration.get(Int96.READ_AS_FIXED),
        () -> new AvroSchemaConverter(configuration));
    return super.prepareForRead(configuration, Map.of(AVRO_SCHEMA_KEY, records), fileSchema, readContext);
  }

  /**
   * The text of {@link #recordSchema} of {@code projection}, derived once per projection and INT96 setting (the one
   * setting of ours the converter reads): the files one writer wrote share it, and a read of a few rows of many
   * files would otherwise spend a good part of its time deriving and printing it.
   */
  private static String recordSchemaText(MessageType projection, String int96AsFixed,
      Supplier<AvroSchemaConverter> converter) {
    List<Object> key = Arrays.asList(projection, int96AsFixed);
    String text = RECORD_SCHEMAS.get(key);
    if (text == null) {
      text = recordSchema(converter.get(), projection).toString();
      if (RECORD_SCHEMAS.size() >= MAX_RECORD_SCHEMAS) {
        RECORD_SCHEMAS.clear();
      }
      RECORD_SCHEMAS.put(key, text);
    }
    return text;
  }

  /**
   * The Avro schema parquet-avro derives from {@code projection}, with what it leaves out put back: the unit of a
   * nanosecond timestamp (it hands those over as plain longs, which would read as microseconds) and Java strings.
   */
  static Schema recordSchema(AvroSchemaConverter converter, MessageType projection) {
    Schema avro = converter.convert(projection);
    for (Schema.Field f : avro.getFields()) {
      Schema s = nonNull(f.schema());
      Type t = projection.getType(f.name());
      if (t.isPrimitive() && s.getLogicalType() == null
          && t.getLogicalTypeAnnotation() instanceof TimestampLogicalTypeAnnotation ts
          && ts.getUnit() == LogicalTypeAnnotation.TimeUnit.NANOS) {
        (ts.isAdjustedToUTC() ? LogicalTypes.timestampNanos() : LogicalTypes.localTimestampNanos()).addToSchema(s);
      }
      if (s.getType() == Schema.Type.STRING) {
        GenericData.setStringType(s, GenericData.StringType.String);
      }
    }
    return avro;
  }

  private static Schema nonNull(Schema s) {
    if (s.getType() == Schema.Type.UNION) {
      for (Schema branch : s.getTypes()) {
        if (branch.getType() != Schema.Type.NULL) {
          return branch;
        }
      }
    }
    return s;
  }

  private static final class Builder extends ParquetReader.Builder<GenericRecord> {
    private final ReadSupport<GenericRecord> support;

    Builder(InputFile file, ParquetConfiguration conf, ReadSupport<GenericRecord> support) {
      super(file, conf);
      this.support = support;
    }

    @Override
    protected ReadSupport<GenericRecord> getReadSupport() {
      return support;
    }
  }
}
