package io.dimstream.query.http;

import java.time.Duration;

/**
 * How much the query endpoint gives one client, so that slow or greedy clients cannot starve the others.
 *
 * @param requestTimeout           a request whose first byte has arrived must be complete (head and body) within
 *                                 this time, else its connection is closed; however slowly its bytes trickle in
 * @param idleTimeout              a connection that sends or reads nothing for this long is closed (also a
 *                                 connection that never sends a request, and a client that stops reading)
 * @param threads                  requests answered at once; the others wait for a thread (at most one request
 *                                 per connection waits, so the connection limits bound the wait queue)
 * @param maxConnections           open connections in all; beyond, new connections wait in the listen backlog
 * @param maxConnectionsPerAddress open connections from one client IP address; beyond, a new one is closed at once
 */
public record HttpLimits(Duration requestTimeout, Duration idleTimeout, int threads, int maxConnections,
    int maxConnectionsPerAddress) {
  /** The limits the service runs with (documented in docs/operations.md). */
  public static final HttpLimits DEFAULTS = new HttpLimits(Duration.ofSeconds(10), Duration.ofSeconds(30), 16, 1024,
      64);

  public HttpLimits {
    if (requestTimeout.isNegative() || requestTimeout.isZero() || idleTimeout.isNegative() || idleTimeout.isZero()
        || threads < 1 || maxConnections < 1 || maxConnectionsPerAddress < 1) {
      throw new IllegalArgumentException("HTTP limits must be positive: " + requestTimeout + ", " + idleTimeout
          + ", " + threads + ", " + maxConnections + ", " + maxConnectionsPerAddress);
    }
  }

  public HttpLimits withRequestTimeout(Duration d) {
    return new HttpLimits(d, idleTimeout, threads, maxConnections, maxConnectionsPerAddress);
  }

  public HttpLimits withIdleTimeout(Duration d) {
    return new HttpLimits(requestTimeout, d, threads, maxConnections, maxConnectionsPerAddress);
  }

  public HttpLimits withMaxConnectionsPerAddress(int n) {
    return new HttpLimits(requestTimeout, idleTimeout, threads, maxConnections, n);
  }
}
