package io.dimstream.table.internal.index;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** A canonical byte form of a version identity (key values normalised to their column types, then valid_from). */
public final class IdentityBytes {
  private IdentityBytes() {}

  public static byte[] of(BusinessKey key, Sequence validFrom) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(32);
    for (Object v : key.values()) {
      if (v instanceof Long l) {
        out.write(1);
        writeLong(out, l);
      } else if (v instanceof Integer i) {
        // ints and longs of one value must meet: normalised keys never mix them in one column
        out.write(2);
        writeLong(out, i);
      } else {
        byte[] text = String.valueOf(v).getBytes(StandardCharsets.UTF_8);
        out.write(v instanceof String ? 3 : 4);
        writeLong(out, text.length);
        out.write(text, 0, text.length);
      }
    }
    out.write(0);
    for (int p = 0; p < validFrom.size(); p++) {
      writeLong(out, validFrom.part(p));
    }
    return out.toByteArray();
  }

  private static void writeLong(ByteArrayOutputStream out, long v) {
    for (int s = 56; s >= 0; s -= 8) {
      out.write((int) (v >>> s));
    }
  }
}
