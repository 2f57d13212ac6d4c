package io.dimstream.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.internals.Exit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One embedded Kafka broker per test class, on a fresh temporary directory, for integration tests.
 *
 * <pre>{@code
 * @RegisterExtension static final BrokerExtension KAFKA = new BrokerExtension();
 * ... KAFKA.bootstrapServers() ... KAFKA.clientProperties() ...
 * }</pre>
 * or {@code @ExtendWith(BrokerExtension.class)} and an {@link EmbeddedKafkaBroker} parameter on a test method,
 * a constructor or a {@code @BeforeAll} method.
 *
 * <p>While the broker runs, Kafka's {@code Exit.exit/halt} throw instead of stopping the test JVM; a call to
 * either fails the test class in {@code afterAll}. Close your clients and Streams before the class ends.
 */
public final class BrokerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BrokerExtension.class);

  private final AtomicReference<String> exitCall = new AtomicReference<>();
  private EmbeddedKafkaBroker broker;
  private Path dataDir;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    interceptExit(exitCall);
    dataDir = Files.createTempDirectory("dimstream-broker-");
    broker = EmbeddedKafkaBroker.start(dataDir, 0);
    context.getStore(NAMESPACE).put(EmbeddedKafkaBroker.class, broker);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      if (broker != null) {
        broker.close();
      }
    } finally {
      Exit.resetExitProcedure();
      Exit.resetHaltProcedure();
      if (dataDir != null) {
        deleteRecursively(dataDir);
      }
    }
    String call = exitCall.get();
    if (call != null) {
      throw new AssertionError("The embedded Kafka broker hit a fatal fault: " + call);
    }
  }

  /** The running broker; only between {@code beforeAll} and {@code afterAll}. */
  public EmbeddedKafkaBroker broker() {
    if (broker == null) {
      throw new IllegalStateException("the broker starts in beforeAll: register the extension on a static field");
    }
    return broker;
  }

  public String bootstrapServers() {
    return broker().bootstrapServers();
  }

  /** A new mutable map with {@code bootstrap.servers}, to extend with client settings. */
  public Map<String, Object> clientProperties() {
    return broker().clientProperties();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == EmbeddedKafkaBroker.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    EmbeddedKafkaBroker b = context.getStore(NAMESPACE).get(EmbeddedKafkaBroker.class, EmbeddedKafkaBroker.class);
    if (b == null) {
      throw new ParameterResolutionException("no embedded broker: BrokerExtension starts it in beforeAll");
    }
    return b;
  }

  /**
   * Makes Kafka's {@code Exit.exit} and {@code Exit.halt} throw and records the first call in {@code firstCall},
   * so a fatal broker fault fails a test instead of ending the JVM. Undo with {@code Exit.resetExitProcedure()}
   * and {@code Exit.resetHaltProcedure()}.
   */
  static void interceptExit(AtomicReference<String> firstCall) {
    Exit.setExitProcedure((code, message) -> {
      firstCall.compareAndSet(null, "Exit.exit(" + code + "): " + message);
      throw new IllegalStateException("Kafka called Exit.exit(" + code + "): " + message);
    });
    Exit.setHaltProcedure((code, message) -> {
      firstCall.compareAndSet(null, "Exit.halt(" + code + "): " + message);
      throw new IllegalStateException("Kafka called Exit.halt(" + code + "): " + message);
    });
  }

  static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
