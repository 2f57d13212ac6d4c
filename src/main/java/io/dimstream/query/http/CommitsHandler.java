package io.dimstream.query.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.query.QueryErrors;
import io.dimstream.query.TableCommit;
import java.io.IOException;
import java.util.TreeMap;

/** {@code /dimensions/{dim}/commits?limit=N}: the table's latest commits, newest first (20 unless asked, at most 1000). */
final class CommitsHandler {
  void handle(Exchange ex, DimensionEndpoint dim, String limitText) throws IOException {
    int limit = limitText == null ? 20 : (int) wholeNumber("limit", limitText, 1, 1000);
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("dimension", dim.name());
    ArrayNode list = n.putArray("commits");
    for (TableCommit c : dim.commits().latest(limit)) {
      ObjectNode o = list.addObject();
      o.put("version", c.version());
      o.put("timestamp", c.timestamp().toString());
      o.put("operation", c.operation());
      ObjectNode m = o.putObject("operationMetrics");
      new TreeMap<>(c.operationMetrics()).forEach(m::put);
    }
    ex.sendJson(200, n);
  }

  /** A numeric parameter in ASCII digits within [min, max]; anything else is 400 naming the range. */
  private static long wholeNumber(String parameter, String text, long min, long max) {
    if (!text.matches("-?[0-9]{1,18}")) {
      throw QueryErrors.outOfRange(parameter, text, min, max);
    }
    long n = Long.parseLong(text);
    if (n < min || n > max) {
      throw QueryErrors.outOfRange(parameter, text, min, max);
    }
    return n;
  }
}
