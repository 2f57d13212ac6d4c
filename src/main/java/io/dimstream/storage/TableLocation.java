package io.dimstream.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a table lives: a directory on the local file system, or a prefix in an object store bucket
 * ({@code s3://bucket/prefix}) or Azure container ({@code az://container/prefix},
 * {@code abfss://container@account.dfs.core.windows.net/prefix}). Parsed from what a user types ({@code --table}, {@code service.table_path}): a text
 * that starts with a URI scheme ({@code name:}) is a URI and must name a supported store; anything else is a local
 * path. So {@code s3:/x}, {@code hdfs://x} or {@code gs://x} are refused with the supported forms, never taken as a
 * directory named {@code s3:}.
 *
 * @param scheme {@link #LOCAL} for a local directory, else the store's URI scheme ({@code s3})
 * @param bucket the bucket of an object store location; for {@code az} the container, for {@code abfss} the whole
 *               authority {@code container@account.dfs.<suffix>}; empty for a local one
 * @param prefix the key prefix of the table in the bucket, without leading or trailing slash (may be empty); for a
 *               local location the absolute, normalized directory
 */
public record TableLocation(String scheme, String bucket, String prefix) {
  public static final String LOCAL = "file";
  public static final String S3 = "s3";
  /** Azure Blob Storage, the account from the settings or the environment. */
  public static final String AZ = "az";
  /** Azure Data Lake Storage Gen2 (and Blob Storage), the account in the URI's host. */
  public static final String ABFSS = "abfss";
  /** The forms a table location may take, for error messages. */
  public static final String SUPPORTED = "a local path (data/tables/customers, /var/dims/customers or "
      + "file:///var/dims/customers), s3://bucket/prefix (AWS S3 and S3-compatible stores), az://container/prefix or "
      + "abfss://container@account.dfs.core.windows.net/prefix (Azure Blob Storage, ADLS Gen2)";

  /** A URI scheme at the start: letter, then letters, digits, '+', '-', '.', then ':'; two letters or more, so
   * that a Windows drive ({@code C:\dims}) is still a path. */
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):.*", Pattern.DOTALL);
  /** S3 bucket names: 3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
  private static final Pattern S3_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  /** Azure container names: 3 to 63 lower-case letters, digits and single hyphens, starting with a letter or digit. */
  private static final Pattern AZURE_CONTAINER = Pattern.compile("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]");
  /** An ADLS Gen2 host: the account (3 to 24 lower-case letters and digits), then {@code .dfs.} and the cloud's suffix. */
  private static final Pattern ABFSS_HOST = Pattern.compile("[a-z0-9]{3,24}\\.dfs\\.[a-z0-9-]+(\\.[a-z0-9-]+)+");

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

  /** An Azure Blob Storage location ({@code az://container/prefix}). */
  public static TableLocation azure(String container, String prefix) {
    return parse("az://" + container + "/" + prefix);
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
        return new TableLocation(S3, bucket, prefix(text, uri));
      }
      case AZ -> {
        if (!t.substring(scheme.length() + 1).startsWith("//")) {
          throw malformed(text, "an Azure location starts with az:// and the container");
        }
        String container = uri.getAuthority();
        if (container == null || container.isEmpty()) {
          throw malformed(text, "it names no container");
        }
        checkContainer(text, container);
        return new TableLocation(AZ, container, prefix(text, uri));
      }
      case ABFSS -> {
        String authority = uri.getRawAuthority();
        if (!t.substring(scheme.length() + 1).startsWith("//") || authority == null || uri.getUserInfo() == null
            || uri.getHost() == null) {
          throw malformed(text, "an ADLS Gen2 location is abfss://container@account.dfs.core.windows.net/prefix");
        }
        checkContainer(text, uri.getUserInfo());
        String host = uri.getHost().toLowerCase(java.util.Locale.ROOT);
        if (!ABFSS_HOST.matcher(host).matches() || uri.getPort() != -1) {
          throw malformed(text, "'" + uri.getHost() + "' is not an ADLS Gen2 host (account.dfs.core.windows.net)");
        }
        return new TableLocation(ABFSS, uri.getUserInfo() + "@" + host, prefix(text, uri));
      }
      default -> throw new StorageException("'" + text + "': the table location scheme '" + scheme
          + "' is not supported. Fix: give " + SUPPORTED + ".");
    }
  }

  /** The key prefix of an object store URI: its path without leading or trailing slashes. */
  private static String prefix(String text, URI uri) {
    if (uri.getQuery() != null || uri.getFragment() != null) {
      throw malformed(text, "a table location has no query (?) or fragment (#)");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    if (path.contains("//")) {
      throw malformed(text, "the prefix holds an empty path segment (//)");
    }
    return trimSlashes(path);
  }

  private static void checkContainer(String text, String container) {
    if (!AZURE_CONTAINER.matcher(container).matches()) {
      throw malformed(text, "'" + container + "' is not a valid container name (3 to 63 lower-case letters, digits "
          + "and single hyphens, starting and ending with a letter or digit)");
    }
  }

  /** The Azure container of an {@code az} or {@code abfss} location. */
  public String container() {
    int at = bucket.indexOf('@');
    return at < 0 ? bucket : bucket.substring(0, at);
  }

  /** The host of an {@code abfss} location ({@code account.dfs.core.windows.net}), or null. */
  public String accountHost() {
    int at = bucket.indexOf('@');
    return scheme.equals(ABFSS) && at >= 0 ? bucket.substring(at + 1) : null;
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
