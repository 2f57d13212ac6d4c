package io.dimstream.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableLocationTest {
  @Test
  void shouldTakeAPathWithoutSchemeAsALocalDirectory() {
    TableLocation l = TableLocation.parse("data/tables/customers");
    assertThat(l.isLocal()).isTrue();
    assertThat(l.localPath()).isEqualTo(Path.of("data/tables/customers").toAbsolutePath().normalize());
    assertThat(TableLocation.parse("file:///var/dims/customers").localPath()).isEqualTo(Path.of("/var/dims/customers"));
  }

  @Test
  void shouldSplitAnS3UriIntoBucketAndPrefix() {
    TableLocation l = TableLocation.parse("s3://dims/warehouse/customers/");
    assertThat(l.isLocal()).isFalse();
    assertThat(l.scheme()).isEqualTo("s3");
    assertThat(l.bucket()).isEqualTo("dims");
    assertThat(l.prefix()).isEqualTo("warehouse/customers");
    assertThat(l.toString()).isEqualTo("s3://dims/warehouse/customers");
    assertThat(l.describe("_delta_log/00000000000000000000.json"))
        .isEqualTo("s3://dims/warehouse/customers/_delta_log/00000000000000000000.json");
    assertThat(TableLocation.parse("s3://dims").prefix()).isEmpty();
  }

  @Test
  void shouldSplitAzureUrisIntoContainerAccountAndPrefix() {
    TableLocation az = TableLocation.parse("az://dims/warehouse/customers/");
    assertThat(az.scheme()).isEqualTo("az");
    assertThat(az.container()).isEqualTo("dims");
    assertThat(az.accountHost()).isNull();
    assertThat(az.prefix()).isEqualTo("warehouse/customers");
    assertThat(az.toString()).isEqualTo("az://dims/warehouse/customers");

    TableLocation gen2 = TableLocation.parse("abfss://dims@myaccount.dfs.core.windows.net/warehouse/customers");
    assertThat(gen2.container()).isEqualTo("dims");
    assertThat(gen2.accountHost()).isEqualTo("myaccount.dfs.core.windows.net");
    assertThat(gen2.prefix()).isEqualTo("warehouse/customers");
    assertThat(gen2.describe("_delta_log/00000000000000000000.json"))
        .isEqualTo("abfss://dims@myaccount.dfs.core.windows.net/warehouse/customers/_delta_log/00000000000000000000.json");
    assertThat(gen2.keyOf("abfss://dims@myaccount.dfs.core.windows.net/warehouse/customers/part-1.parquet"))
        .contains("part-1.parquet");
  }

  @ParameterizedTest
  @ValueSource(strings = {"hdfs://namenode/dims/customers", "gs://dims/customers", "wasbs://dims@account.blob.core"
      + ".windows.net/customers", "abfs://dims@account.dfs.core.windows.net/customers", "http://example.org/dims",
      "S3A://dims/customers"})
  void shouldRefuseASchemeNoStoreSupportsNamingTheSupportedOnes(String uri) {
    assertThatThrownBy(() -> TableLocation.parse(uri)).isInstanceOf(StorageException.class)
        .hasMessageContaining("is not supported").hasMessageContaining("s3://bucket/prefix")
        .hasMessageContaining("az://container/prefix").hasMessageContaining("abfss://container@account.dfs.core"
            + ".windows.net/prefix").hasMessageContaining("a local path");
  }

  @ParameterizedTest
  @ValueSource(strings = {"s3:/dims/customers", "s3:dims", "s3:///customers", "s3://Dims_Upper/customers",
      "s3://dims/customers?versionId=1", "s3://dims//customers", "file://host/dims", "az:/dims/customers", "az:///x",
      "az://Dims/customers", "az://di--ms/customers", "az://dims/customers?sv=1", "abfss://dims/customers",
      "abfss://dims@account.blob.core.windows.net/customers", "abfss://Dims@account.dfs.core.windows.net/x",
      "abfss://dims@account.dfs.core.windows.net:443/x"})
  void shouldRefuseAMalformedUriOfASupportedSchemeRatherThanTakeItAsAPath(String uri) {
    assertThatThrownBy(() -> TableLocation.parse(uri)).isInstanceOf(StorageException.class)
        .hasMessageContaining("is not a valid table location").hasMessageContaining("s3://bucket/prefix");
  }
}
