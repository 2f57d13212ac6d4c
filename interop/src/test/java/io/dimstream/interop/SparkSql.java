package io.dimstream.interop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark SQL over standard input and output, for the interop suite: one local SparkSession with Delta Lake, one SQL
 * statement per input line, one JSON line per answer ({@code {"rows":[...]}}, each row an object of its columns with
 * timestamps as ISO-8601 instants to the microsecond, or
 * {@code {"error":"...","errorClass":"..."}}). A line {@code READ_CHANGE_FEED <startingVersion> <path>} reads the
 * change data feed of the table at the path with the DataFrame reader instead. Spark's logs go to standard error.
 * Ends at end of input.
 */
public final class SparkSql {
  private static final String READ_CHANGE_FEED = "READ_CHANGE_FEED ";

  private SparkSql() {}

  public static void main(String[] args) throws Exception {
    PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err); // whatever Spark prints must not mix with the answers
    SparkSession spark = SparkSession.builder()
        .appName("dimstream-interop")
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.datetime.java8API.enabled", "true")
        .config("spark.sql.warehouse.dir", args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir"))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        // VACUUM ... RETAIN 0 HOURS on small test tables
        .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    ObjectMapper json = new ObjectMapper();
    answers.println("{\"ready\":true,\"spark\":\"" + spark.version() + "\"}");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String sql = in.readLine(); sql != null; sql = in.readLine()) {
      ObjectNode answer = json.createObjectNode();
      try {
        Dataset<Row> result = sql.startsWith(READ_CHANGE_FEED) ? changeFeed(spark, sql) : spark.sql(sql);
        StructType schema = result.schema();
        ArrayNode out = answer.putArray("rows");
        for (Row r : result.collectAsList()) {
          out.add(row(json, schema, r));
        }
      } catch (Exception e) {
        answer.removeAll();
        answer.put("error", String.valueOf(e.getMessage()));
        answer.put("errorClass", e.getClass().getName());
      }
      answers.println(json.writeValueAsString(answer));
    }
    spark.stop();
  }

  /**
   * {@code READ_CHANGE_FEED <startingVersion> <path>}: the table's change data feed through the DataFrame reader
   * ({@code readChangeFeed}), as a job reads it.
   */
  private static Dataset<Row> changeFeed(SparkSession spark, String line) {
    String[] parts = line.substring(READ_CHANGE_FEED.length()).trim().split(" ", 2);
    return spark.read().format("delta").option("readChangeFeed", "true").option("startingVersion", parts[0])
        .load(parts[1]);
  }

  private static ObjectNode row(ObjectMapper json, StructType schema, Row r) {
    ObjectNode o = json.createObjectNode();
    StructField[] fields = schema.fields();
    for (int i = 0; i < fields.length; i++) {
      String name = fields[i].name();
      DataType type = fields[i].dataType();
      if (r.isNullAt(i)) {
        o.putNull(name);
      } else if (type instanceof ArrayType) {
        ArrayNode a = o.putArray(name);
        r.getList(i).forEach(v -> a.add(String.valueOf(v)));
      } else if (type instanceof MapType) {
        ObjectNode m = o.putObject(name);
        r.getJavaMap(i).forEach((k, v) -> m.put(String.valueOf(k), String.valueOf(v)));
      } else {
        Object v = r.get(i);
        if (v instanceof Long l) {
          o.put(name, l);
        } else if (v instanceof Integer n) {
          o.put(name, n);
        } else if (v instanceof Double d) {
          o.put(name, d);
        } else if (v instanceof BigDecimal d) {
          o.put(name, d);
        } else if (v instanceof Boolean b) {
          o.put(name, b);
        } else {
          o.put(name, String.valueOf(v)); // strings, Instant and LocalDate in ISO-8601, structs as text
        }
      }
    }
    return o;
  }
}
