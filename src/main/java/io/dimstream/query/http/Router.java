package io.dimstream.query.http;

import io.dimstream.query.QueryErrors;
import io.dimstream.query.QueryException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a request's token and method, decodes its path and query, hands it to the handler of its route and turns
 * a {@link QueryException} into its status: 400 bad input, 404 not found, 502 an owner that did not answer.
 */
final class Router {
  private static final Logger LOG = LoggerFactory.getLogger(Router.class);

  /** The whole expected Authorization header, or null when no token is configured. */
  private final byte[] token;
  private final byte[] page;
  private final HealthHandler health;
  private final MetricsHandler metrics;
  private final DimensionsHandler dimensions;
  private final KeyHandler keys;
  private final CommitsHandler commits;

  Router(String token, byte[] page, HealthHandler health, MetricsHandler metrics, DimensionsHandler dimensions,
      KeyHandler keys, CommitsHandler commits) {
    this.token = token == null ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    this.page = page;
    this.health = health;
    this.metrics = metrics;
    this.dimensions = dimensions;
    this.keys = keys;
    this.commits = commits;
  }

  void handle(Exchange ex) {
    try {
      try {
        if (token != null && !authorized(ex.header("Authorization"))) {
          ex.addHeader("WWW-Authenticate", "Bearer realm=\"dimstream\"");
          ex.sendError(401, "unauthorized", "This endpoint needs a bearer token: send 'Authorization: Bearer "
              + "<token>' with the token of the spec's service.http.auth.");
          return;
        }
        if (!"GET".equals(ex.method())) {
          // HEAD too: no route is cheaper without its body, and docs/reference/http.md promises GET only
          ex.addHeader("Allow", "GET");
          ex.sendError(405, "method_not_allowed", ex.method() + " is not supported; use GET.");
          return;
        }
        route(ex);
      } catch (QueryException e) {
        int status = switch (e.reason()) {
          case BAD_INPUT -> 400;
          case NOT_FOUND -> 404;
          case UNAVAILABLE -> 502;
        };
        ex.sendError(status, e.reason().name().toLowerCase(Locale.ROOT), e.getMessage());
      } catch (RuntimeException e) {
        LOG.error("Query endpoint failed on {} {}", ex.method(), ex.request().getHttpURI(), e);
        ex.sendError(500, "internal", "The query failed: " + e.getMessage());
      }
    } catch (RuntimeException | IOException e) {
      ex.callback().failed(e);
    }
  }

  /** Compares in constant time: how long a refusal takes must not tell how much of a guess was right. */
  private boolean authorized(String header) {
    return header != null && MessageDigest.isEqual(token, header.getBytes(StandardCharsets.UTF_8));
  }

  private void route(Exchange ex) throws IOException {
    String rawPath = ex.rawPath();
    List<String> seg = new ArrayList<>();
    for (String s : rawPath.split("/")) {
      if (!s.isEmpty()) {
        seg.add(UrlText.pathSegment(s));
      }
    }
    Map<String, String> query = queryParameters(ex.rawQuery());
    if (seg.isEmpty()) {
      ex.send(200, "text/html; charset=utf-8", page);
    } else if (seg.size() == 1 && seg.get(0).equals("health")) {
      health.handle(ex);
    } else if (seg.size() == 1 && seg.get(0).equals("metrics")) {
      metrics.handle(ex);
    } else if (!seg.get(0).equals("dimensions")) {
      throw notFoundRoute(rawPath);
    } else if (seg.size() == 1) {
      dimensions.list(ex);
    } else {
      DimensionEndpoint dim = dimensions.get(seg.get(1));
      if (seg.size() == 2) {
        dimensions.describe(ex, dim);
      } else if (seg.size() == 3 && seg.get(2).equals("commits")) {
        commits.handle(ex, dim, query.get("limit"));
      } else if (seg.size() >= 4 && seg.size() <= 5 && seg.get(2).equals("keys")
          && (seg.size() == 4 || seg.get(4).equals("history"))) {
        keys.handle(ex, dim, seg.get(3), seg.size() == 5, query.get("asOf"));
      } else {
        throw notFoundRoute(rawPath);
      }
    }
  }

  private static QueryException notFoundRoute(String path) {
    return QueryErrors.wrapped(QueryException.Reason.NOT_FOUND, "No route for " + path + ". Routes: /, /health, "
        + "/metrics, /dimensions, /dimensions/{dim}, /dimensions/{dim}/keys/{key}[?asOf=T], "
        + "/dimensions/{dim}/keys/{key}/history, /dimensions/{dim}/commits.", null);
  }

  private static Map<String, String> queryParameters(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(UrlText.queryPart(k), UrlText.queryPart(v));
    }
    return out;
  }
}
