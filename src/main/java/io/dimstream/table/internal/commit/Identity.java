package io.dimstream.table.internal.commit;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.table.internal.files.ValueOrder;

/** A version's identity, business key and full opening sequence, ordered as the data files are sorted. */
record Identity(BusinessKey key, Sequence validFrom) implements Comparable<Identity> {
  static Identity of(Version v) {
    return new Identity(v.key(), v.validFrom());
  }

  static Identity of(VersionChange c) {
    return new Identity(c.key(), c.validFrom());
  }

  @Override
  public int compareTo(Identity o) {
    int c = ValueOrder.compareKeys(key, o.key);
    return c != 0 ? c : validFrom.compareTo(o.validFrom);
  }
}
