package io.dimstream.batch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** Lines of text as backfill inputs numbered from 1. */
final class BackfillInputs {
  private BackfillInputs() {}

  static Iterator<Backfill.Input> of(List<String> lines) {
    List<Backfill.Input> out = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      out.add(new Backfill.Input(i + 1, lines.get(i).getBytes(StandardCharsets.UTF_8)));
    }
    return out.iterator();
  }
}
