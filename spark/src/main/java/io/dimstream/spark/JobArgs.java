package io.dimstream.spark;

/** The job's arguments: {@code --config F --input PATH --table T [--dlq D]}. */
record JobArgs(String config, String input, String table, String dlq) {
  static final String USAGE = "Usage: spark-submit --class io.dimstream.spark.BackfillJob dimstream-spark.jar "
      + "--config <spec.yaml> --input <file|directory|glob> --table <table location> [--dlq <file>]";

  static JobArgs parse(String[] args) {
    String config = null;
    String input = null;
    String table = null;
    String dlq = null;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        throw new JobException(name + " needs a value. " + USAGE);
      }
      String value = args[++i];
      switch (name) {
        case "--config" -> config = value;
        case "--input" -> input = value;
        case "--table" -> table = value;
        case "--dlq" -> dlq = value;
        default -> throw new JobException("Unknown option " + name + ". " + USAGE);
      }
    }
    if (config == null || input == null || table == null) {
      throw new JobException("Missing " + (config == null ? "--config" : input == null ? "--input" : "--table") + ". "
          + USAGE);
    }
    return new JobArgs(config, input, table, dlq);
  }
}
