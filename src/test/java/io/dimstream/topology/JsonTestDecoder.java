package io.dimstream.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.config.Column;
import io.dimstream.config.ColumnValues;
import io.dimstream.config.DeleteRule;
import io.dimstream.config.DimensionSpec;
import io.dimstream.history.BusinessKey;
import io.dimstream.history.ChangeEvent;
import io.dimstream.history.Sequence;
import java.util.ArrayList;
import java.util.List;

/** A minimal JSON decoder for topology tests until io.dimstream.change lands. */
final class JsonTestDecoder implements RecordDecoder {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final DimensionSpec spec;

  JsonTestDecoder(DimensionSpec spec) {
    this.spec = spec;
  }

  @Override
  public Result decode(byte[] key, byte[] value, long timestampMillis) {
    JsonNode n;
    try {
      n = MAPPER.readTree(value);
    } catch (Exception e) {
      return new Rejected("malformed-json", e.getMessage());
    }
    if (n == null || !n.isObject()) {
      return new Rejected("malformed-json", "not an object");
    }
    try {
      List<Object> k = new ArrayList<>();
      for (Column c : spec.keyColumns()) {
        Object v = ColumnValues.fromJson(n.get(c.name()), c.type());
        if (v == null) {
          return new Rejected("missing-key", c.name());
        }
        k.add(v);
      }
      long[] seq = new long[spec.sequence().size()];
      for (int i = 0; i < seq.length; i++) {
        Column c = spec.sequenceColumns().get(i);
        Object v = ColumnValues.fromJson(n.get(c.name()), c.type());
        if (v == null) {
          return new Rejected("missing-sequence", c.name());
        }
        seq[i] = ColumnValues.sequenceLong(v, c.type());
      }
      List<Object> attrs = new ArrayList<>();
      for (Column c : spec.attributeColumns()) {
        attrs.add(ColumnValues.fromJson(n.get(c.name()), c.type()));
      }
      boolean delete = spec.deleteRule() instanceof DeleteRule.ColumnEquals ce
          && ce.equals().equals(n.path(ce.column()).asText());
      return new Accepted(new ChangeEvent(new BusinessKey(k), Sequence.of(seq), delete, attrs));
    } catch (IllegalArgumentException e) {
      return new Rejected("bad-type", e.getMessage());
    }
  }
}
