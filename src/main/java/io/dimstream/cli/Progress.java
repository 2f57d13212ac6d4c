package io.dimstream.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress display for long commands: count, rate and ETA, redrawn in place on a terminal; on
 * anything else (a log file, CI) a plain line every few seconds so output stays readable.
 */
final class Progress implements AutoCloseable {
  private static final long TERMINAL_REDRAW_NANOS = 200_000_000L;
  private static final long PLAIN_LINE_NANOS = 5_000_000_000L;

  private final String what;
  private volatile long total;
  private final PrintStream out;
  private final boolean terminal;
  private final long started = System.nanoTime();
  private long done;
  private long bytesTotal = -1;
  private long bytesDone;
  private long lastDrawn = started; // first draw after one interval: short runs print only the final line

  /** @param total the expected count, or -1 when unknown (no ETA then) */
  Progress(String what, long total, PrintStream out, boolean terminal) {
    this.what = what;
    this.total = total;
    this.out = out;
    this.terminal = terminal;
  }

  static Progress onStderr(String what, long total) {
    return new Progress(what, total, System.err, System.console() != null);
  }

  /** Sets the expected count once it is known (counted beside the work, so that the work need not wait for it). */
  void total(long expected) {
    this.total = expected;
  }

  /**
   * Measures progress by the bytes of a file read rather than by a count of its records, which would take a second
   * read of the file: the bar and the ETA follow {@code bytesDone} of {@code bytesTotal}; records are still counted.
   */
  void bytes(long bytesTotal) {
    this.bytesTotal = bytesTotal;
  }

  /** {@code n} more records done, and {@code bytesRead} bytes of the file (see {@link #bytes}) read so far. */
  void step(long n, long bytesRead) {
    bytesDone = bytesRead;
    step(n);
  }

  void step(long n) {
    done += n;
    long now = System.nanoTime();
    if (now - lastDrawn >= (terminal ? TERMINAL_REDRAW_NANOS : PLAIN_LINE_NANOS)) {
      lastDrawn = now;
      draw(false);
    }
  }

  long done() {
    return done;
  }

  double ratePerSecond() {
    double secs = Math.max(1e-9, elapsedSeconds());
    return done / secs;
  }

  /** A 30-character bar filled to {@code part / whole}. */
  private static void bar(StringBuilder line, long part, long whole) {
    int width = 30;
    int filled = (int) Math.min(width, width * part / whole);
    line.append('[').append("#".repeat(filled)).append(" ".repeat(width - filled)).append("] ");
  }

  private double elapsedSeconds() {
    return (System.nanoTime() - started) / 1e9;
  }

  private void draw(boolean last) {
    double rate = ratePerSecond();
    StringBuilder line = new StringBuilder();
    if (total > 0) {
      bar(line, done, total);
      line.append(String.format(Locale.ROOT, "%,d/%,d %s", done, total, what));
    } else if (bytesTotal > 0) {
      bar(line, bytesDone, bytesTotal);
      line.append(String.format(Locale.ROOT, "%,d %s, %,d/%,d MB read", done, what, bytesDone >> 20,
          bytesTotal >> 20));
    } else {
      line.append(String.format(Locale.ROOT, "%,d %s", done, what));
    }
    line.append(String.format(Locale.ROOT, "  %,.0f/s", rate));
    long etaSecs = -1;
    if (total > 0 && !last && rate > 0) {
      etaSecs = (long) Math.ceil((total - done) / rate);
    } else if (total <= 0 && bytesTotal > 0 && bytesDone > 0 && !last) {
      etaSecs = (long) Math.ceil(elapsedSeconds() * (bytesTotal - bytesDone) / bytesDone);
    }
    if (etaSecs >= 0) {
      line.append(String.format(Locale.ROOT, "  ETA %d:%02d", etaSecs / 60, etaSecs % 60));
    }
    if (last) {
      line.append(String.format(Locale.ROOT, "  in %.1f s", elapsedSeconds()));
    }
    if (terminal) {
      out.print("\r" + line + "\u001b[K" + (last ? "\n" : ""));
    } else {
      out.println(line);
    }
    out.flush();
  }

  @Override
  public void close() {
    draw(true);
  }
}
