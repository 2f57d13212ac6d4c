package io.dimstream.bench;

import io.dimstream.testkit.ChangeStreams;
import java.nio.file.Path;

/**
 * Writes the backfill benchmark's change file in its own JVM, so that the generator's in-memory stream (GBs at
 * 10M events) is gone before the measured process starts. Usage: {@code GenerateChanges <events> <keys> <seed>
 * <file>}; 5% late, 2% duplicate, 1% delete, 5% no-change.
 */
public final class GenerateChanges {
  private GenerateChanges() {}

  public static void main(String[] args) {
    ChangeStreams.random(BenchSpecs.customers(), Long.parseLong(args[2])).keys(Integer.parseInt(args[1]))
        .events(Integer.parseInt(args[0])).late(0.05).duplicates(0.02).deletes(0.01).noChange(0.05).generate()
        .writeJsonLines(Path.of(args[3]));
  }
}
