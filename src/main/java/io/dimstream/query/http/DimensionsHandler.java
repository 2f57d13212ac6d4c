package io.dimstream.query.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.query.QueryErrors;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.types.Column;
import java.io.IOException;
import java.util.Comparator;
import java.util.Map;

/** {@code /dimensions} and {@code /dimensions/{dim}}: the served dimensions, their key, sequence and columns. */
final class DimensionsHandler {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private final Map<String, DimensionEndpoint> dimensions;

  DimensionsHandler(Map<String, DimensionEndpoint> dimensions) {
    this.dimensions = dimensions;
  }

  /** The dimension served under this name; 404 naming the served ones when there is none. */
  DimensionEndpoint get(String name) {
    DimensionEndpoint dim = dimensions.get(name);
    if (dim == null) {
      throw QueryErrors.unknownDimension(name, dimensions.keySet().stream().sorted().toList());
    }
    return dim;
  }

  void list(Exchange ex) throws IOException {
    ArrayNode all = NODES.arrayNode();
    dimensions.values().stream().sorted(Comparator.comparing(DimensionEndpoint::name))
        .forEach(d -> all.add(describe(d.live().spec())));
    ObjectNode n = NODES.objectNode();
    n.set("dimensions", all);
    ex.sendJson(200, n);
  }

  void describe(Exchange ex, DimensionEndpoint dim) throws IOException {
    ex.sendJson(200, describe(dim.live().spec()));
  }

  private static ObjectNode describe(DimensionSpec spec) {
    ObjectNode n = NODES.objectNode();
    n.put("name", spec.name());
    ArrayNode key = n.putArray("key");
    spec.key().forEach(key::add);
    ObjectNode seq = n.putObject("sequence");
    Column first = spec.sequenceColumns().get(0);
    seq.put("column", first.name());
    seq.put("type", first.type().toString());
    ArrayNode attrs = n.putArray("attributes");
    for (Column c : spec.attributeColumns()) {
      ObjectNode a = attrs.addObject();
      a.put("name", c.name());
      a.put("type", c.type().toString());
      a.put("tracked", spec.isTracked(c.name()));
    }
    ObjectNode out = n.putObject("output");
    out.put("validFrom", spec.output().validFrom());
    out.put("validTo", spec.output().validTo());
    out.put("isCurrent", spec.output().isCurrent());
    return n;
  }
}
