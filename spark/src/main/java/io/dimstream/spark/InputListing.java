package io.dimstream.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The files of the job's input, in arrival order: a file, a directory (its files, not those whose names start with
 * {@code .} or {@code _}, as Spark's own readers skip them) or a glob, on any file system Spark reaches (local,
 * {@code s3a://}, {@code abfss://}, {@code hdfs://}); ordered by path, so the order is the same on every run.
 */
final class InputListing {
  private InputListing() {}

  static List<String> files(String input, Configuration conf) throws IOException {
    Path path = new Path(input);
    FileSystem fs = path.getFileSystem(conf);
    FileStatus[] matched = fs.globStatus(path);
    if (matched == null || matched.length == 0) {
      throw new JobException(input + ": no such file, directory or files matching the glob. Fix: pass a file of change "
          + "events (JSON lines, .csv), a directory of them or a glob such as 's3a://bucket/changes/*.jsonl' with --input");
    }
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus s : matched) {
      if (s.isDirectory()) {
        for (FileStatus child : fs.listStatus(s.getPath())) {
          if (child.isFile() && !hidden(child.getPath())) {
            files.add(child);
          }
        }
      } else if (!hidden(s.getPath())) {
        files.add(s);
      }
    }
    if (files.isEmpty()) {
      throw new JobException(input + " holds no file of change events (files whose names start with '.' or '_' are "
          + "skipped). Fix: pass a directory or glob with at least one file");
    }
    List<String> paths = new ArrayList<>();
    files.stream().map(f -> f.getPath().toString()).sorted(Comparator.naturalOrder()).distinct().forEach(paths::add);
    return paths;
  }

  private static boolean hidden(Path p) {
    String name = p.getName();
    return name.startsWith(".") || name.startsWith("_");
  }

  static boolean isCsv(String path) {
    return path.toLowerCase(java.util.Locale.ROOT).endsWith(".csv");
  }
}
