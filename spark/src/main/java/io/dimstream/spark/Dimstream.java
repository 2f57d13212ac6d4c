package io.dimstream.spark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.concurrent.Callable;

/**
 * dimstream in this JVM, loaded from the jar nested in the job's jar by a class loader whose parent is the platform's:
 * none of Spark's classes (its Jackson, Parquet, Hadoop, Scala) are seen by dimstream's, nor the other way round.
 * Calls cross only with JDK types ({@code io.dimstream.cli.SparkJobEntry}), each with that loader as the thread's
 * context loader, which libraries inside dimstream (Hadoop's configuration, service loaders) look classes up in.
 */
final class Dimstream {
  static final String NESTED_JAR = "/META-INF/dimstream/dimstream.jar";
  private static final String ENTRY = "io.dimstream.cli.SparkJobEntry";
  private static Dimstream local;

  private final ClassLoader loader;
  private final Class<?> entry;

  private Dimstream(ClassLoader loader, Class<?> entry) {
    this.loader = loader;
    this.entry = entry;
  }

  /** This JVM's dimstream, extracted and loaded on first use. */
  static synchronized Dimstream local() {
    if (local == null) {
      try (InputStream in = Dimstream.class.getResourceAsStream(NESTED_JAR)) {
        if (in == null) {
          throw new IllegalStateException("The job's jar holds no " + NESTED_JAR + ": it was built without the "
              + "dimstream jar. Fix: build the main project (mvn -B -DskipTests package), then spark/");
        }
        Path jar = Files.createTempFile("dimstream-", ".jar");
        jar.toFile().deleteOnExit();
        Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
        URLClassLoader loader = new URLClassLoader("dimstream", new URL[] {jar.toUri().toURL()},
            ClassLoader.getPlatformClassLoader());
        local = new Dimstream(loader, Class.forName(ENTRY, true, loader));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("The dimstream jar inside the job's jar has no " + ENTRY, e);
      }
    }
    return local;
  }

  /** Calls the static method {@code name} of the entry class with {@code args}. */
  @SuppressWarnings("unchecked")
  <T> T call(String name, Object... args) {
    Method method = Arrays.stream(entry.getMethods())
        .filter(m -> m.getName().equals(name) && m.getParameterCount() == args.length)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(ENTRY + " has no method " + name + " of " + args.length
            + " arguments: the job's jar and its dimstream jar are of different builds"));
    return inside(() -> {
      try {
        return (T) method.invoke(null, args);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(cause.getMessage(), cause);
      }
    });
  }

  /** Runs {@code work} with dimstream's loader as the thread's context loader. */
  <T> T inside(Callable<T> work) {
    Thread t = Thread.currentThread();
    ClassLoader before = t.getContextClassLoader();
    t.setContextClassLoader(loader);
    try {
      return work.call();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    } finally {
      t.setContextClassLoader(before);
    }
  }
}
