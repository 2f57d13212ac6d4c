package io.dimstream.cli;

import io.dimstream.DimstreamException;
import io.dimstream.spec.Durations;
import java.nio.file.Path;

/** Builds the errors the commands report: what happened, why, and how to fix it. */
final class CliErrors {
  private CliErrors() {}

  static DimstreamException missingSpec(Path config) {
    return new UsageError(config + ": no such file. Fix: pass the dimension spec with --config, e.g. "
        + "--config examples/customers.yaml");
  }

  static DimstreamException tableWithSeveralDimensions() {
    return new UsageError("--table names one table, and several dimensions run here. Fix: set service.table_path in"
        + " each spec, or leave it out: each table then lives under <data_dir>/tables/<name>.");
  }

  static DimstreamException sourceWithSeveralDimensions(Path file) {
    return new UsageError(file + " captures a database (source:), which runs with one dimension. Fix: run it on its"
        + " own with --config " + file + ", the others with --config <directory>.");
  }

  static DimstreamException missingInput(Path input) {
    return new InputError(input + ": no such file. Fix: pass a file of change events (.jsonl or .csv) with --input");
  }

  static picocli.CommandLine.TypeConversionException badDuration(String value) {
    return new picocli.CommandLine.TypeConversionException("cannot read '" + value + "' as a duration: it is neither "
        + "a whole number with a unit (ms, s, m, h, d) nor ISO-8601. Fix: write e.g. " + Durations.EXAMPLES);
  }

  static DimstreamException produceFailed(String topic, Exception cause) {
    return new InputError("Sending to " + topic + " failed: " + cause.getMessage()
        + ". Fix: check that the broker is up and the topic exists (dimstream run creates it)", cause);
  }

  static DimstreamException unconvertibleRecord(Path file, long line, String why) {
    return new InputError(file + ", line " + line + ": cannot write the record as Avro with the spec's schema: " + why
        + ". Nothing was sent or applied. Fix: correct or remove that line, then run the command again");
  }

  /** A problem with the command line or the spec: exit code 2. */
  static final class UsageError extends DimstreamException {
    UsageError(String message) {
      super(message);
    }
  }

  /** A problem with an input file, a table or the broker: exit code 1. */
  static final class InputError extends DimstreamException {
    InputError(String message) {
      super(message);
    }

    InputError(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
