package io.dimstream.batch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;

/**
 * A file of JSON lines read as blocks of whole lines: the reading thread only copies bytes, finds the last line end
 * and counts line ends (for the first line number of the next block); the lines are split where a block is decoded,
 * on the decode threads. Lines end as {@link java.io.BufferedReader#readLine} ends them ({@code \n}, {@code \r},
 * {@code \r\n}); blank lines count in the numbering and are skipped; a record is never decoded here, so bytes that
 * are not UTF-8 reach the decoder unchanged.
 */
final class LineBlocks implements Iterator<LineBlocks.Block>, AutoCloseable {
  /** About 9,000 lines of the generator's records: big enough that a block's hand-off costs nothing per line. */
  static final int BLOCK_BYTES = 1 << 20;

  /**
   * Whole lines of the file, {@code bytes[0, length)}; the first is line {@code firstLine} (1-based). Every block but
   * the last ends with a complete line end, so the lines of a block split alone exactly as in the whole file.
   */
  record Block(byte[] bytes, int length, long firstLine) implements ParallelDecode.Batch {
    /** The block's non-blank lines, each with its line number and its exact bytes. */
    @Override
    public List<Backfill.Input> inputs() {
      List<Backfill.Input> out = new ArrayList<>(length / 64 + 1);
      long number = firstLine;
      int start = 0;
      for (int i = 0; i < length; i++) {
        byte b = bytes[i];
        if (b != '\n' && b != '\r') {
          continue;
        }
        add(out, start, i, number++);
        if (b == '\r' && i + 1 < length && bytes[i + 1] == '\n') {
          i++;
        }
        start = i + 1;
      }
      if (start < length) {
        add(out, start, length, number); // the file's last line, without a line end
      }
      return out;
    }

    private void add(List<Backfill.Input> out, int from, int to, long number) {
      if (!BlankLines.isBlank(bytes, from, to)) {
        out.add(new Backfill.Input(number, Arrays.copyOfRange(bytes, from, to)));
      }
    }
  }

  private final Path file;
  private final InputStream in;
  private final int blockBytes;
  /** Bytes read past the last block's end: the start of a line not yet complete. */
  private byte[] carry = new byte[0];
  private long nextLine = 1;
  private long bytesRead;
  private boolean eof;
  private Block next;

  LineBlocks(Path file) throws IOException {
    this(file, BLOCK_BYTES);
  }

  /** With blocks of about {@code blockBytes} (tests use tiny blocks to put line ends at every block edge). */
  LineBlocks(Path file, int blockBytes) throws IOException {
    this.file = file;
    this.in = Files.newInputStream(file);
    this.blockBytes = blockBytes;
    this.next = advance();
  }

  /** Bytes of the file read so far. */
  long bytesRead() {
    return bytesRead;
  }

  @Override
  public boolean hasNext() {
    return next != null;
  }

  @Override
  public Block next() {
    if (next == null) {
      throw new NoSuchElementException();
    }
    Block out = next;
    next = advance();
    return out;
  }

  private Block advance() {
    try {
      byte[] buf = new byte[Math.max(blockBytes, carry.length * 2)];
      System.arraycopy(carry, 0, buf, 0, carry.length);
      int n = carry.length;
      while (true) {
        n = fill(buf, n);
        if (eof) {
          carry = new byte[0];
          return n == 0 ? null : block(buf, n);
        }
        int end = lastLineEnd(buf, n);
        if (end > 0) {
          carry = Arrays.copyOfRange(buf, end, n);
          return block(buf, end);
        }
        buf = Arrays.copyOf(buf, buf.length * 2); // one line longer than the block: read on
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + " after line " + (nextLine - 1), e);
    }
  }

  private int fill(byte[] buf, int n) throws IOException {
    while (n < buf.length) {
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        eof = true;
        break;
      }
      n += r;
      bytesRead += r;
    }
    return n;
  }

  /**
   * Where the block ends: just after the last line end of {@code buf[0, n)}, or 0 when none is certain yet. A
   * {@code \r} as the very last byte stays for the next block, which may begin with its {@code \n}.
   */
  private static int lastLineEnd(byte[] buf, int n) {
    for (int i = n - 1; i >= 0; i--) {
      if (buf[i] == '\n' || (buf[i] == '\r' && i < n - 1)) {
        return i + 1;
      }
    }
    return 0;
  }

  private Block block(byte[] buf, int length) {
    Block b = new Block(buf, length, nextLine);
    nextLine += lineCount(buf, length);
    return b;
  }

  /** Lines in {@code buf[0, length)}, blank ones included, as {@link Block#inputs} numbers them. */
  private static long lineCount(byte[] buf, int length) {
    long lines = 0;
    boolean pending = false;
    for (int i = 0; i < length; i++) {
      byte b = buf[i];
      if (b == '\n') {
        lines += i > 0 && buf[i - 1] == '\r' ? 0 : 1;
        pending = false;
      } else if (b == '\r') {
        lines++;
        pending = false;
      } else {
        pending = true;
      }
    }
    return pending ? lines + 1 : lines;
  }

  /**
   * The records at {@code lines} (1-based, as {@link Block#inputs} numbers them) of {@code file}, read again: how a
   * backfill gets back the few records its fold rejects without holding every record until the fold. Only the
   * blocks holding a wanted line are split.
   */
  static Map<Long, byte[]> recordsAt(Path file, Set<Long> lines) throws IOException {
    Map<Long, byte[]> found = new HashMap<>();
    NavigableSet<Long> wanted = new TreeSet<>(lines);
    if (wanted.isEmpty()) {
      return found;
    }
    try (LineBlocks blocks = new LineBlocks(file)) {
      while (blocks.hasNext() && blocks.next.firstLine() <= wanted.last()) {
        Block b = blocks.next();
        Long firstWanted = wanted.ceiling(b.firstLine());
        if (firstWanted != null && (!blocks.hasNext() || firstWanted < blocks.next.firstLine())) {
          b.inputs().stream().filter(in -> wanted.contains(in.line())).forEach(in -> found.put(in.line(), in.value()));
        }
      }
    }
    return found;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
