package io.dimstream.query;

import static io.dimstream.query.QueryFixtures.ACCOUNTS;
import static io.dimstream.query.QueryFixtures.CUSTOMERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.model.BusinessKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyTextTest {

  @Test
  void shouldReadBareAndNamedSingleColumnKeys() {
    assertThat(KeyText.parse(CUSTOMERS, "42")).isEqualTo(BusinessKey.of(42L));
    assertThat(KeyText.parse(CUSTOMERS, "customer_id=42")).isEqualTo(BusinessKey.of(42L));
    assertThat(KeyText.format(CUSTOMERS, BusinessKey.of(42L))).isEqualTo("42");
  }

  @Test
  void shouldReadCompositeKeysInAnyColumnOrder() {
    BusinessKey k = BusinessKey.of("eu", 7);
    assertThat(KeyText.parse(ACCOUNTS, "region=eu,account_no=7")).isEqualTo(k);
    assertThat(KeyText.parse(ACCOUNTS, "account_no=7, region=eu")).isEqualTo(k);
    assertThat(KeyText.format(ACCOUNTS, k)).isEqualTo("region=eu,account_no=7");
  }

  @Test
  void shouldExplainBadKeys() {
    assertThatThrownBy(() -> KeyText.parse(ACCOUNTS, "region=eu,acct=7"))
        .isInstanceOf(QueryException.class).hasMessageContaining("'acct' is not a key column")
        .hasMessageContaining("[region, account_no]");
    assertThatThrownBy(() -> KeyText.parse(ACCOUNTS, "region=eu"))
        .hasMessageContaining("lacks the key column(s) [account_no]");
    assertThatThrownBy(() -> KeyText.parse(ACCOUNTS, "eu"))
        .hasMessageContaining("lacks the key column(s) [region, account_no]");
    assertThatThrownBy(() -> KeyText.parse(CUSTOMERS, "abc"))
        .hasMessageContaining("'customer_id' is long but got \"abc\"");
    assertThatThrownBy(() -> KeyText.parse(CUSTOMERS, " ")).hasMessageContaining("The key is empty");
    assertThatThrownBy(() -> KeyText.parse(ACCOUNTS, "region=eu,region=us,account_no=1"))
        .hasMessageContaining("gives 'region' twice");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"+42", " 42", "42 ", "\u0664\u0662", "\uff14\uff12", "4_2", "042x", "0x2A", "--42"})
  void shouldRejectANumberKeyNotWrittenInPlainAsciiDigits(String text) {
    assertThatThrownBy(() -> KeyText.parse(CUSTOMERS, text))
        .isInstanceOf(QueryException.class).hasMessageContaining("'customer_id' is long")
        .hasMessageContaining("ASCII digits");
    assertThatThrownBy(() -> KeyText.parse(ACCOUNTS, "region=eu,account_no=" + text))
        .isInstanceOf(QueryException.class).hasMessageContaining("'account_no' is int");
  }

  @Test
  void shouldReadNegativeAndLeadingZeroNumberKeys() {
    assertThat(KeyText.parse(CUSTOMERS, "-42")).isEqualTo(BusinessKey.of(-42L));
    assertThat(KeyText.parse(CUSTOMERS, "0042")).isEqualTo(BusinessKey.of(42L));
    assertThat(KeyText.parse(ACCOUNTS, "region= eu ,account_no=7")).isEqualTo(BusinessKey.of("eu", 7));
  }

  @Test
  void shouldReadTimesAsTheFirstSequenceColumnType() {
    assertThat(SequenceTimes.parse(CUSTOMERS, "2024-01-01T06:00:00.500Z")).isEqualTo(1_704_088_800_500_000L);
    assertThat(SequenceTimes.parse(CUSTOMERS, "2024-01-01T07:00:00.500+01:00")).isEqualTo(1_704_088_800_500_000L);
    assertThat(SequenceTimes.format(CUSTOMERS, 1_704_088_800_500_000L)).isEqualTo("2024-01-01T06:00:00.500Z");
    assertThat(SequenceTimes.parse(ACCOUNTS, "1042")).isEqualTo(1042L);
    assertThatThrownBy(() -> SequenceTimes.parse(CUSTOMERS, "yesterday"))
        .isInstanceOf(QueryException.class).hasMessageContaining("\"yesterday\"")
        .hasMessageContaining("'updated_at' (timestamp)").hasMessageContaining("2024-01-01T06:00:00.500Z");
    assertThatThrownBy(() -> SequenceTimes.parse(ACCOUNTS, "12x")).hasMessageContaining("not a whole number");
  }
}
