package io.dimstream.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.table.internal.files.IdentitySort;
import io.dimstream.table.internal.files.ValueOrder;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The compactor's and the backfill's identity sort puts rows in exactly the order (and, for equal identities, the
 * same relative order) of a stable sort by {@link ValueOrder#BY_IDENTITY}: long, string and two-column keys, one- and
 * two-part sequences, with many ties in the key and the first part.
 */
class IdentitySortProperties {
  @Property(tries = 300)
  void sortsAsTheIdentityComparatorDoes(@ForAll("rows") List<Version> rows) {
    List<Version> expected = new ArrayList<>(rows);
    expected.sort(ValueOrder.BY_IDENTITY);
    List<Version> sorted = new ArrayList<>(rows);

    IdentitySort.sort(sorted);

    // same objects in the same positions: ties keep their input order, as in a stable sort
    assertThat(sorted).hasSameSizeAs(expected);
    for (int i = 0; i < sorted.size(); i++) {
      assertThat(sorted.get(i)).isSameAs(expected.get(i));
    }
  }

  @Provide
  Arbitrary<List<Version>> rows() {
    Arbitrary<Integer> shape = Arbitraries.integers().between(0, 2); // long, string or two-column keys
    return shape.flatMap(s -> version(s).list().ofMinSize(0).ofMaxSize(300));
  }

  private static Arbitrary<Version> version(int keyShape) {
    Arbitrary<BusinessKey> key = switch (keyShape) {
      case 0 -> Arbitraries.longs().between(-20, 20).map(BusinessKey::of);
      case 1 -> Arbitraries.strings().withChars("aAé€𝄞").ofMaxLength(3).map(BusinessKey::of);
      default -> Combinators.combine(Arbitraries.longs().between(0, 5), Arbitraries.strings().withChars("ab")
          .ofMaxLength(2)).as(BusinessKey::of);
    };
    Arbitrary<Sequence> from = Arbitraries.integers().between(1, 2).flatMap(parts -> parts == 1
        ? Arbitraries.longs().between(0, 5).map(Sequence::of)
        : Combinators.combine(Arbitraries.longs().between(0, 3), Arbitraries.longs().between(-2, 2))
            .as((a, b) -> Sequence.of(a, b)));
    return Combinators.combine(key, from).as((k, f) -> new Version(k, f, null, List.of()));
  }
}
