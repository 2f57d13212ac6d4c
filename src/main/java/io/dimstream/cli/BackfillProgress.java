package io.dimstream.cli;

import io.dimstream.batch.Backfill;
import java.io.PrintStream;

/**
 * The two progress lines of a backfill: records read (by bytes of a {@code .jsonl} file, or by a count made beside
 * the work), then, once every record is read, the groups of keys folded and written, which on a large input take
 * longer than the reading and would otherwise leave the first line standing still. The first line is finished, with
 * its time, when the second starts.
 */
final class BackfillProgress implements Backfill.ProgressListener, AutoCloseable {
  private final Progress reading;
  private final PrintStream out;
  private final boolean terminal;
  private Progress writing;

  BackfillProgress(PrintStream out, boolean terminal) {
    this.reading = new Progress("records", -1, out, terminal);
    this.out = out;
    this.terminal = terminal;
  }

  static BackfillProgress onStderr() {
    return new BackfillProgress(System.err, System.console() != null);
  }

  /** The first line, for the input paths that step it and set its total themselves. */
  Progress reading() {
    return reading;
  }

  @Override
  public void read(long records, long bytesRead) {
    if (bytesRead >= 0) {
      reading.step(records, bytesRead);
    } else {
      reading.step(records);
    }
  }

  @Override
  public synchronized void folding(int groups) {
    reading.close();
    writing = new Progress("key groups folded and written", groups, out, terminal);
  }

  @Override
  public synchronized void folded(long versions) {
    writing.step(1);
  }

  @Override
  public synchronized void close() {
    if (writing != null) {
      writing.close();
    } else {
      reading.close();
    }
  }
}
