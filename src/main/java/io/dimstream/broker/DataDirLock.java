package io.dimstream.broker;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** An exclusive lock on a broker data directory, taken before anything in it is touched, held until close. */
final class DataDirLock implements AutoCloseable {
  static final String FILE_NAME = "dimstream-broker.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static DataDirLock acquire(Path dir) {
    FileChannel channel = null;
    try {
      Files.createDirectories(dir);
      channel = FileChannel.open(dir.resolve(FILE_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        throw BrokerErrors.dataDirInUse(dir);
      }
      return new DataDirLock(channel, lock);
    } catch (OverlappingFileLockException e) {
      closeQuietly(channel);
      throw BrokerErrors.dataDirInUse(dir);
    } catch (IOException e) {
      closeQuietly(channel);
      throw BrokerErrors.dataDirUnusable(dir, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // The channel close below releases it as well.
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // Nothing left to release.
      }
    }
  }
}
