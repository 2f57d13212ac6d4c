package io.dimstream.change;

import io.dimstream.spec.DeleteRule;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.DimensionSpecLoader;
import io.dimstream.spec.InputFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Specs and byte helpers shared by the decoder tests. */
final class TestSpecs {
  /** 2026-03-01T08:00:00Z in epoch microseconds. */
  static final long MAR_1_0800_MICROS = 1_772_352_000L * 1_000_000L;

  private TestSpecs() {}

  /** The example spec, exactly as shipped in examples/. */
  static DimensionSpec customers() {
    return DimensionSpecLoader.load(Path.of("examples/customers.yaml"));
  }

  static DimensionSpec customersWith(DeleteRule rule) {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long").column("name", "string").column("email", "string").column("city", "string")
        .column("tier", "string").column("updated_at", "timestamp").column("op", "string")
        .column("is_deleted", "boolean")
        .key("customer_id").sequence("updated_at").track("city", "tier").delete(rule).build();
  }

  /** Composite key (region, account_no), composite sequence (batch_date, lsn), a decimal and a date attribute. */
  static DimensionSpec accounts() {
    return DimensionSpec.builder("accounts")
        .column("region", "string").column("account_no", "int").column("batch_date", "date").column("lsn", "long")
        .column("balance", "decimal(12,2)").column("opened_on", "date").column("score", "double")
        .column("active", "boolean")
        .key("region", "account_no").sequence("batch_date", "lsn").build();
  }

  static DimensionSpec debezium() {
    return DimensionSpecLoader.load(Path.of("examples/customers-debezium.yaml"));
  }

  /** Debezium with the sequence read from source.lsn, then a row column as tie-breaker. */
  static DimensionSpec debeziumLsn() {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long").column("city", "string").column("lsn", "long")
        .key("customer_id").sequence("lsn").inputFormat(InputFormat.DEBEZIUM_JSON)
        .delete(new DeleteRule.DebeziumOp()).build();
  }

  static DimensionSpec debeziumRowSequence() {
    return DimensionSpec.builder("customers")
        .column("customer_id", "long").column("city", "string").column("updated_at", "timestamp")
        .key("customer_id").sequence("updated_at").inputFormat(InputFormat.DEBEZIUM_JSON)
        .delete(new DeleteRule.DebeziumOp()).build();
  }

  static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /** Single quotes stand for double quotes, to keep JSON literals readable. */
  static byte[] json(String singleQuoted) {
    return utf8(singleQuoted.replace('\'', '"'));
  }
}
