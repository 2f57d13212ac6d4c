package io.dimstream.query.http;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose request head has started to arrive but is not complete within the request timeout.
 * The idle timeout alone cannot do this: a client that sends one header byte every few seconds is never idle.
 */
final class SlowRequestReaper implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(SlowRequestReaper.class);

  /** Requests (complete heads) seen on a connection, its bytes then, and since when a new head has been pending. */
  private static final class Progress {
    long messages;
    long bytesAtMessage;
    long pendingSince;

    Progress(long now) {
      this.pendingSince = now;
    }
  }

  private final Duration timeout;
  private final Clock clock;
  private final Map<Connection, Progress> open = new ConcurrentHashMap<>();

  SlowRequestReaper(Duration timeout, Clock clock) {
    this.timeout = timeout;
    this.clock = clock;
  }

  @Override
  public void onOpened(Connection connection) {
    open.put(connection, new Progress(clock.millis()));
  }

  @Override
  public void onClosed(Connection connection) {
    open.remove(connection);
  }

  /** Checks every open connection once; call it periodically, at a fraction of the timeout. */
  void sweep() {
    long now = clock.millis();
    open.forEach((connection, p) -> {
      long messages = connection.getMessagesIn();
      long bytes = connection.getBytesIn();
      if (messages != p.messages) {
        // a head was completed since the last check (Jetty counts a request when its head is complete)
        p.messages = messages;
        p.bytesAtMessage = bytes;
        p.pendingSince = now;
      } else if (bytes == p.bytesAtMessage) {
        // nothing arrived since the last complete head: an idle connection, the idle timeout's business
        p.pendingSince = now;
      } else if (now - p.pendingSince > timeout.toMillis()) {
        LOG.warn("Closed a connection from {}: its request did not arrive completely within {} s",
            connection.getEndPoint().getRemoteSocketAddress(), timeout.toSeconds());
        open.remove(connection);
        connection.getEndPoint().close();
      }
    });
  }
}
