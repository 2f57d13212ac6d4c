package io.dimstream.cli;

import io.dimstream.batch.BlankLines;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * The non-blank lines of a file as their exact bytes, split as {@link java.io.BufferedReader#readLine} splits text
 * ({@code \n}, {@code \r} and {@code \r\n}): a record is never decoded here, so one that is not valid UTF-8 reaches
 * the decoder unchanged and is rejected as {@code bad-encoding}, as on the changes topic.
 */
final class ByteLines implements InputFiles.LineReader {
  private final Path file;
  private final InputStream in;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int limit;
  private byte[] line = new byte[256];
  private int length;
  private boolean afterCr;
  private boolean eof;
  private long number;
  private InputFiles.Line next;

  ByteLines(Path file) throws IOException {
    this.file = file;
    this.in = Files.newInputStream(file);
    this.next = advance();
  }

  private InputFiles.Line advance() {
    try {
      while (!eof) {
        length = 0;
        boolean ended = false;
        for (int b = read(); ; b = read()) {
          if (b < 0) {
            eof = true;
            break;
          }
          if (b == '\n' && afterCr) {
            afterCr = false; // the second half of a \r\n already ended the line
            continue;
          }
          afterCr = b == '\r';
          if (b == '\n' || b == '\r') {
            ended = true;
            break;
          }
          append((byte) b);
        }
        if (!ended && length == 0) {
          return null; // end of file right after a line end
        }
        number++;
        if (!BlankLines.isBlank(line, 0, length)) {
          return new InputFiles.Line(number, Arrays.copyOf(line, length));
        }
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + " at line " + (number + 1), e);
    }
  }

  /** The next byte, or -1 at the end; its own buffer, as a BufferedInputStream locks on every read. */
  private int read() throws IOException {
    if (pos == limit) {
      limit = in.read(buf, 0, buf.length);
      pos = 0;
      if (limit <= 0) {
        limit = 0;
        return -1;
      }
    }
    return buf[pos++] & 0xFF;
  }

  private void append(byte b) {
    if (length == line.length) {
      line = Arrays.copyOf(line, line.length * 2);
    }
    line[length++] = b;
  }

  @Override
  public boolean hasNext() {
    return next != null;
  }

  @Override
  public InputFiles.Line next() {
    if (next == null) {
      throw new NoSuchElementException();
    }
    InputFiles.Line out = next;
    next = advance();
    return out;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
