package io.dimstream.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a table lives: a directory on the local file system, or a prefix in an object store bucket
 * ({@code s3://bucket/prefix}). Parsed from what a user types ({@code --table}, {@code service.table_path}): a text
 * that starts with a URI scheme ({@code name:}) is a URI and must name a supported store; anything else is a local
 * path. So {@code s3:/x}, {@code hdfs://x} or {@code gs://x} are refused with the supported forms, never taken as a
 * directory named {@code s3:}.
 *
 * @param scheme {@link #LOCAL} for a local directory, else the store's URI scheme ({@code s3})
 * @param bucket the bucket of an object store location; empty for a local one
 * @param prefix the key prefix of the table in the bucket, without leading or trailing slash (may be empty); for a
 *               local location the absolute, normalized directory
 */
public record TableLocation(String scheme, String bucket, String prefix) {
  public static final String LOCAL = "file";
  public static final String S3 = "s3";
  /** The forms a table location may take, for error messages. */
  public static final String SUPPORTED = "a local path (data/tables/customers, /var/dims/customers or "
      + "file:///var/dims/customers) or s3://bucket/prefix (AWS S3 and S3-compatible stores)";

  /** A URI scheme at the start: letter, then letters, digits, '+', '-', '.', then ':'; two letters or more, so
   * that a Windows drive ({@code C:\dims}) is still a path. */
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):.*", Pattern.DOTALL);
  /** S3 bucket names: 3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
  private static final Pattern S3_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  public TableLocation {
    Objects.requireNonNull(scheme, "scheme");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(prefix, "prefix");
  }

  /** A local directory (made absolute and normalized). */
  public static TableLocation local(Path dir) {
    return new TableLocation(LOCAL, "", dir.toAbsolutePath().normalize().toString());
  }

  /** An S3 (or S3-compatible) location. */
  public static TableLocation s3(String bucket, String prefix) {
    return parse("s3://" + bucket + "/" + prefix);
  }

  /**
   * Parses a table location as a user gives it.
   *
   * @throws StorageException naming the supported forms when the text has a URI scheme that no store supports, or
   *     is a malformed URI of a supported one (no bucket, an invalid bucket name, {@code s3:/x})
   */
  public static TableLocation parse(String text) {
    Objects.requireNonNull(text, "text");
    String t = text.strip();
    if (t.isEmpty()) {
      throw new StorageException("The table location is empty. Fix: give " + SUPPORTED + ".");
    }
    var m = SCHEME.matcher(t);
    if (!m.matches()) {
      return local(Path.of(t));
    }
    String scheme = m.group(1).toLowerCase(java.util.Locale.ROOT);
    URI uri;
    try {
      uri = new URI(t);
    } catch (URISyntaxException e) {
      throw malformed(text, e.getMessage());
    }
    switch (scheme) {
      case LOCAL -> {
        if (uri.getAuthority() != null && !uri.getAuthority().isEmpty() && !uri.getAuthority().equals("localhost")) {
          throw malformed(text, "a file URI names no host (file:///absolute/path)");
        }
        if (uri.getPath() == null || !uri.getPath().startsWith("/")) {
          throw malformed(text, "a file URI holds an absolute path (file:///absolute/path)");
        }
        return local(Path.of(uri.getPath()));
      }
      case S3 -> {
        if (!t.substring(scheme.length() + 1).startsWith("//")) {
          throw malformed(text, "an S3 location starts with s3:// and the bucket");
        }
        String bucket = uri.getAuthority();
        if (bucket == null || bucket.isEmpty()) {
          throw malformed(text, "it names no bucket");
        }
        if (!S3_BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
          throw malformed(text, "'" + bucket + "' is not a valid bucket name (3 to 63 lower-case letters, digits, "
              + "dots and hyphens)");
        }
        if (uri.getQuery() != null || uri.getFragment() != null) {
          throw malformed(text, "a table location has no query (?) or fragment (#)");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String prefix = trimSlashes(path);
        if (path.contains("//")) {
          throw malformed(text, "the prefix holds an empty path segment (//)");
        }
        return new TableLocation(S3, bucket, prefix);
      }
      default -> throw new StorageException("'" + text + "': the table location scheme '" + scheme
          + "' is not supported. Fix: give " + SUPPORTED + ".");
    }
  }

  private static String trimSlashes(String p) {
    int from = 0;
    int to = p.length();
    while (from < to && p.charAt(from) == '/') {
      from++;
    }
    while (to > from && p.charAt(to - 1) == '/') {
      to--;
    }
    return p.substring(from, to);
  }

  private static StorageException malformed(String text, String why) {
    return new StorageException("'" + text + "' is not a valid table location: " + why + ". Fix: give " + SUPPORTED
        + ".");
  }

  public boolean isLocal() {
    return scheme.equals(LOCAL);
  }

  /**
   * The directory of a local location.
   *
   * @throws StorageException when the table is in an object store
   */
  public Path localPath() {
    if (!isLocal()) {
      throw new StorageException(this + " is not a local directory; this operation needs a table on the local file "
          + "system.");
    }
    return Path.of(prefix);
  }

  /** The location of a file or directory under the table ({@code relative} uses '/'). */
  public String describe(String relative) {
    if (relative.isEmpty()) {
      return toString();
    }
    return isLocal() ? Path.of(prefix).resolve(relative).toString() : toString() + "/" + relative;
  }

  /** The absolute local path, or the URI ({@code s3://bucket/prefix}). */
  @Override
  public String toString() {
    if (isLocal()) {
      return prefix;
    }
    return scheme + "://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }

  /**
   * The store key of a file path as a Delta log writes it ({@code add}/{@code remove} paths, absolute deletion
   * vector paths): a relative, URI-encoded path is decoded; an absolute URI must point into this location (a local
   * table also takes a file URI elsewhere on its file system, as an absolute path). Empty when it points outside.
   */
  public java.util.Optional<String> keyOf(String path) {
    URI uri;
    try {
      uri = new URI(path);
    } catch (URISyntaxException e) {
      return java.util.Optional.of(path);
    }
    if (!uri.isAbsolute()) {
      return java.util.Optional.of(uri.getPath());
    }
    if (isLocal() && "file".equals(uri.getScheme())) {
      Path file = Path.of(uri).normalize();
      Path dir = localPath();
      return java.util.Optional.of(
          file.startsWith(dir) ? dir.relativize(file).toString().replace('\\', '/') : file.toString());
    }
    String base = this + "/";
    String whole = uri.getScheme() + "://" + uri.getAuthority() + uri.getPath();
    return whole.startsWith(base) ? java.util.Optional.of(whole.substring(base.length())) : java.util.Optional.empty();
  }
}
