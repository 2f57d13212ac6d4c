package io.dimstream.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.dimstream.types.ColumnType;
import io.dimstream.types.ColumnValues;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The deterministic 64-bit id of a version ({@code output.version_id}): a pure function of its identity
 * {@code (business key, valid_from)}, so every run, replay and backfill of the same events gives the same id.
 *
 * <p>Definition: the first 8 bytes, read big-endian as a signed long, of
 * {@code SHA-256(canonicalKeyBytes || validFrom part 1 || .. || validFrom part n)}, where
 * {@code canonicalKeyBytes} is the UTF-8 JSON array of the key values in key-column order as
 * {@link ColumnValues#toJson} renders them, with no spaces ({@code [42]}, {@code ["EU",7]},
 * {@code ["2020-02-29"]}), and each valid_from part is its long (epoch microseconds for a timestamp, epoch days for a
 * date, the number itself otherwise) as 8 bytes big-endian. These are the key bytes the topology's stores use.
 * Thread-safe.
 */
public final class SurrogateIds {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final List<ColumnType> keyTypes;

  /** @param keyTypes the types of the key columns, in key order */
  public SurrogateIds(List<ColumnType> keyTypes) {
    this.keyTypes = List.copyOf(keyTypes);
  }

  /** The id of the version {@code (key, validFrom)}. */
  public long of(BusinessKey key, Sequence validFrom) {
    MessageDigest sha = sha256();
    sha.update(keyBytes(key));
    ByteBuffer part = ByteBuffer.allocate(Long.BYTES);
    for (int i = 0; i < validFrom.size(); i++) {
      part.clear();
      part.putLong(validFrom.part(i));
      sha.update(part.array());
    }
    return ByteBuffer.wrap(sha.digest()).getLong();
  }

  public long of(Version v) {
    return of(v.key(), v.validFrom());
  }

  /** The canonical key bytes: the JSON array of the key values. */
  byte[] keyBytes(BusinessKey key) {
    List<Object> values = key.values();
    if (values.size() != keyTypes.size()) {
      throw new IllegalArgumentException("key " + key + " has " + values.size() + " values, expected "
          + keyTypes.size());
    }
    ArrayNode n = NODES.arrayNode(values.size());
    for (int i = 0; i < values.size(); i++) {
      n.add(ColumnValues.toJson(values.get(i), keyTypes.get(i)));
    }
    try {
      return JSON.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render key " + key, e);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must support SHA-256", e);
    }
  }
}
