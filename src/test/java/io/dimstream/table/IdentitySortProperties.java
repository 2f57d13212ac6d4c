package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.table.internal.files.IdentitySort;
import io.dimstream.table.internal.files.ValueOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The compactor's and the backfill's identity sort puts rows in exactly the order (and, for equal identities, the
 * same relative order) of a stable sort by {@link ValueOrder#BY_IDENTITY}: long, string and two-column keys, one- and
 * two-part sequences (one arity per table, as a spec fixes it), with many ties in the key and the first part.
 */
class IdentitySortProperties {
  @Test
  void sortsAsTheIdentityComparatorDoes() {
    qt().withExamples(300).forAll(rows()).checkAssert(rows -> {
      List<Version> expected = new ArrayList<>(rows);
      expected.sort(ValueOrder.BY_IDENTITY);
      List<Version> sorted = new ArrayList<>(rows);

      IdentitySort.sort(sorted);

      // same objects in the same positions: ties keep their input order, as in a stable sort
      assertThat(sorted).hasSameSizeAs(expected);
      for (int i = 0; i < sorted.size(); i++) {
        assertThat(sorted.get(i)).isSameAs(expected.get(i));
      }
    });
  }

  static Gen<List<Version>> rows() {
    Gen<Integer> shape = integers().between(0, 2); // long, string or two-column keys
    // one sequence arity per list, as in a table: its spec fixes the sequence columns for every row
    Gen<Integer> parts = integers().between(1, 2);
    return shape.zip(parts, (s, p) -> lists().of(version(s, p)).ofSizeBetween(0, 300)).flatMap(g -> g);
  }

  private static Gen<Version> version(int keyShape, int sequenceParts) {
    Gen<BusinessKey> key = switch (keyShape) {
      case 0 -> longs().between(-20, 20).map(k -> BusinessKey.of(k));
      case 1 -> charsOf("aAé€𝄞", 3).map(k -> BusinessKey.of(k));
      default -> longs().between(0, 5).zip(charsOf("ab", 2), (a, b) -> BusinessKey.of(a, b));
    };
    Gen<Sequence> from = sequenceParts == 1
        ? longs().between(0, 5).map(s -> Sequence.of(s))
        : longs().between(0, 3).zip(longs().between(-2, 2), (a, b) -> Sequence.of(a, b));
    return key.zip(from, (k, f) -> new Version(k, f, null, List.of()));
  }

  /**
   * Strings of up to {@code maxLength} code points of {@code chars} (a supplementary character whole): keys never hold
   * a lone surrogate, since every decoder refuses one as {@code bad-encoding}, and code point order is only a total
   * order on well-formed text.
   */
  private static Gen<String> charsOf(String chars, int maxLength) {
    List<Integer> each = chars.codePoints().boxed().toList();
    return lists().of(arbitrary().pick(each)).ofSizeBetween(0, maxLength).map(cs -> {
      StringBuilder s = new StringBuilder();
      cs.forEach(s::appendCodePoint);
      return s.toString();
    });
  }

}
