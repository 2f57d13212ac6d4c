package io.dimstream.query.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.io.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Closes a new connection at once when its client address already holds the allowed number of connections. */
final class PerAddressConnectionLimit implements Connection.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(PerAddressConnectionLimit.class);

  private final int limit;
  /** The connections let in, per address; a refused one is never added, so its close cannot free a slot. */
  private final Map<InetAddress, Set<Connection>> open = new ConcurrentHashMap<>();
  /** Where each admitted connection came from: a closed endpoint no longer knows its remote address. */
  private final Map<Connection, InetAddress> addressOf = new ConcurrentHashMap<>();

  PerAddressConnectionLimit(int limit) {
    this.limit = limit;
  }

  @Override
  public void onOpened(Connection connection) {
    InetAddress address = address(connection);
    if (address == null) {
      return;
    }
    boolean[] admitted = new boolean[1];
    open.compute(address, (a, set) -> {
      Set<Connection> s = set == null ? new HashSet<>() : set;
      admitted[0] = s.size() < limit && s.add(connection);
      if (admitted[0]) {
        addressOf.put(connection, address);
      }
      return s.isEmpty() ? null : s;
    });
    if (!admitted[0]) {
      LOG.warn("Closed a connection from {}: it already holds {} connections to the query endpoint, the most one "
          + "client address may hold", address.getHostAddress(), limit);
      connection.getEndPoint().close();
    }
  }

  @Override
  public void onClosed(Connection connection) {
    InetAddress address = addressOf.remove(connection);
    if (address != null) {
      open.computeIfPresent(address, (a, set) -> {
        set.remove(connection);
        return set.isEmpty() ? null : set;
      });
    }
  }

  private static InetAddress address(Connection connection) {
    SocketAddress remote = connection.getEndPoint().getRemoteSocketAddress();
    return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
  }
}
