package io.dimstream.interop;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The classic Delta Lake SCD2 job, the baseline of the spark-backfill benchmark: the customers change file (JSON
 * lines of the example spec: key {@code customer_id}, sequence {@code updated_at}, tracked {@code city} and
 * {@code tier}, delete when {@code op = 'd'}) cut into {@code batches} equal batches in arrival order, then one
 * {@code MERGE INTO} per batch with the staged-updates pattern: each changed key once with its key as the merge key
 * (closes the current row) and once with a null merge key (inserts the new current row).
 *
 * <p>A MERGE takes at most one source row per target row, so each batch keeps only each key's last event in arrival
 * order; the versions in between are lost. Events are applied in arrival order, so a late event becomes the current
 * row and closes a newer one: the history is wrong under late data. It is a cost baseline, not a reference.
 *
 * <p>Usage: {@code DeltaMergeScd2 <input.jsonl> <table dir> <staging dir> <batches> <master>}. Prints one line
 * {@code merge-baseline rows=N current=M merges=B} at the end.
 */
public final class DeltaMergeScd2 {
  private static final StructType INPUT = new StructType()
      .add("customer_id", DataTypes.LongType).add("name", DataTypes.StringType)
      .add("email", DataTypes.StringType).add("city", DataTypes.StringType).add("tier", DataTypes.StringType)
      // text: the cast below reads every ISO-8601 form the generator writes
      .add("updated_at", DataTypes.StringType).add("op", DataTypes.StringType);

  private DeltaMergeScd2() {}

  public static void main(String[] args) {
    String input = args[0];
    String table = "delta.`" + args[1] + "`";
    String staging = args[2];
    int batches = Integer.parseInt(args[3]);
    SparkSession spark = SparkSession.builder()
        .appName("delta-merge-scd2")
        .master(args[4])
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        // sized for the benchmark's 2 cores, as a user would tune it; Spark's default of 200 is sized for clusters
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");

    long events = land(spark, input, staging, batches);
    spark.sql("CREATE TABLE " + table + " (customer_id BIGINT, name STRING, email STRING, city STRING, tier STRING,"
        + " updated_at TIMESTAMP, is_current BOOLEAN, valid_from TIMESTAMP, valid_to TIMESTAMP) USING delta");
    long batchSize = Math.max(1, (events + batches - 1) / batches);
    int merges = 0;
    for (long b = 0; b * batchSize < events; b++) {
      merge(spark, table, spark.read().parquet(staging).where("batch = " + b));
      merges++;
    }
    Row counts = spark.sql("SELECT count(*), count_if(is_current) FROM " + table).first();
    System.out.println("merge-baseline rows=" + counts.getLong(0) + " current=" + counts.getLong(1)
        + " merges=" + merges);
    spark.stop();
  }

  /**
   * Writes the input to {@code staging} as Parquet partitioned by batch number (arrival position / batch size), as a
   * nightly job finds each day's increment landed on its own; returns the number of events.
   */
  private static long land(SparkSession spark, String input, String staging, int batches) {
    Dataset<Row> raw = spark.read().schema(INPUT).json(input);
    // zipWithIndex numbers the records in file order: the arrival position a batch boundary needs
    JavaRDD<Row> numbered = raw.javaRDD().zipWithIndex().map(t -> {
      List<Object> values = new ArrayList<>(t._1().size() + 1);
      for (int i = 0; i < t._1().size(); i++) {
        values.add(t._1().get(i));
      }
      values.add(t._2());
      return RowFactory.create(values.toArray());
    });
    Dataset<Row> positioned = spark.createDataFrame(numbered, INPUT.add("pos", DataTypes.LongType)).cache();
    long events = positioned.count();
    long batchSize = Math.max(1, (events + batches - 1) / batches);
    positioned.selectExpr("customer_id", "name", "email", "city", "tier",
            "CAST(updated_at AS TIMESTAMP) AS updated_at", "op", "pos",
            "CAST(pos / " + batchSize + " AS BIGINT) AS batch")
        .write().mode(SaveMode.Overwrite).partitionBy("batch").parquet(staging);
    positioned.unpersist();
    return events;
  }

  /** One batch: each key's last event, staged twice for changed keys, in one MERGE. */
  private static void merge(SparkSession spark, String table, Dataset<Row> increment) {
    increment.createOrReplaceTempView("increment");
    spark.sql("SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY customer_id ORDER BY pos DESC) AS rn"
        + " FROM increment) WHERE rn = 1").createOrReplaceTempView("updates");
    String changed = "(u.city IS DISTINCT FROM c.city OR u.tier IS DISTINCT FROM c.tier)";
    spark.sql("SELECT u.customer_id AS merge_key, u.customer_id, u.name, u.email, u.city, u.tier, u.updated_at, u.op"
        + " FROM updates u"
        + " UNION ALL"
        + " SELECT NULL AS merge_key, u.customer_id, u.name, u.email, u.city, u.tier, u.updated_at, u.op"
        + " FROM updates u JOIN " + table + " c ON u.customer_id = c.customer_id"
        + " WHERE c.is_current AND u.op IS DISTINCT FROM 'd' AND " + changed).createOrReplaceTempView("staged");
    // matching the current row only, so that a key deleted earlier gets a new current row when it comes back
    spark.sql("MERGE INTO " + table + " c USING staged u ON c.customer_id = u.merge_key AND c.is_current"
        + " WHEN MATCHED AND (u.op = 'd' OR " + changed + ")"
        + " THEN UPDATE SET is_current = false, valid_to = u.updated_at"
        + " WHEN NOT MATCHED AND u.op IS DISTINCT FROM 'd'"
        + " THEN INSERT (customer_id, name, email, city, tier, updated_at, is_current, valid_from, valid_to)"
        + " VALUES (u.customer_id, u.name, u.email, u.city, u.tier, u.updated_at, true, u.updated_at, NULL)");
  }
}
