package io.dimstream.table.internal.commit;

import io.dimstream.model.VersionId;
import io.dimstream.table.internal.files.ValueOrder;
import java.util.Comparator;

/** The order data files are sorted in: business key, then the full opening sequence. */
final class IdentityOrder {
  static final Comparator<VersionId> ORDER = (a, b) -> {
    int c = ValueOrder.compareKeys(a.key(), b.key());
    return c != 0 ? c : a.validFrom().compareTo(b.validFrom());
  };

  private IdentityOrder() {}
}
