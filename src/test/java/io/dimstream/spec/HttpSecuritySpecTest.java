package io.dimstream.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code service.http.tls} and {@code service.http.auth} as a user writes them, and the refusals they meet. */
class HttpSecuritySpecTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String BASE = """
      name: customers
      columns: {customer_id: long, updated_at: timestamp, city: string}
      key: [customer_id]
      sequence: [updated_at]
      """;

  @TempDir
  Path dir;
  private Path cert;
  private Path key;

  @BeforeEach
  void files() throws Exception {
    // existence is checked at load; the content is read when the endpoint starts
    cert = Files.writeString(dir.resolve("cert.pem"), "-");
    key = Files.writeString(dir.resolve("key.pem"), "-");
  }

  private DimensionSpec load(String service) throws Exception {
    Path file = dir.resolve("spec.yaml");
    Files.writeString(file, BASE + "service:\n  http:\n" + service.indent(4));
    return DimensionSpecLoader.load(file);
  }

  private HttpSecurity read(String http, Map<String, String> env) throws Exception {
    JsonNode node = YAML.readTree(http);
    return HttpSecuritySection.read(node, dir.resolve("spec.yaml"), env::get);
  }

  @Test
  void shouldStayOpenOnLoopbackByDefault() throws Exception {
    DimensionSpec spec = DimensionSpecLoader.load(Files.writeString(dir.resolve("spec.yaml"), BASE));
    assertThat(spec.service().httpHost()).isEqualTo("127.0.0.1");
    assertThat(spec.service().httpSecurity()).isEqualTo(HttpSecurity.NONE);
  }

  @Test
  void shouldReadPemTlsAndATokenFromTheEnvironment() throws Exception {
    HttpSecurity s = read("tls: {cert: " + cert + ", key: " + key + "}\nauth: {token_env: DIMSTREAM_HTTP_TOKEN}\n",
        Map.of("DIMSTREAM_HTTP_TOKEN", "tok-123"));
    assertThat(s.tls().cert()).isEqualTo(cert);
    assertThat(s.tls().key()).isEqualTo(key);
    assertThat(s.token()).isEqualTo("tok-123");
    assertThat(s.exposureProblem("0.0.0.0")).isEmpty();
    assertThat(s.toString()).doesNotContain("tok-123");
  }

  @Test
  void shouldReadAKeystoreWithItsPasswordAndAClientCa() throws Exception {
    HttpSecurity s = read("tls: {keystore: " + cert + ", password_env: P, client_ca: " + key + "}\n",
        Map.of("P", "store-pass"));
    assertThat(s.tls().keystore()).isEqualTo(cert);
    assertThat(s.tls().password()).isEqualTo("store-pass");
    assertThat(s.clientCertificates()).isTrue();
    assertThat(s.exposureProblem("0.0.0.0")).as("client certificates authenticate").isEmpty();
    assertThat(s.toString()).doesNotContain("store-pass");
  }

  @Test
  void shouldNameTheMissingEnvironmentVariable() {
    assertThatThrownBy(() -> read("auth: {token_env: DIMSTREAM_HTTP_TOKEN}\n", Map.of()))
        .hasMessageContaining("service.http.auth.token_env").hasMessageContaining("DIMSTREAM_HTTP_TOKEN")
        .hasMessageContaining("export DIMSTREAM_HTTP_TOKEN");
  }

  @Test
  void shouldRefuseIncompleteOrConflictingTls() {
    assertThatThrownBy(() -> read("tls: {cert: " + cert + "}\n", Map.of()))
        .hasMessageContaining("service.http.tls.key").hasMessageContaining("give both cert and key");
    assertThatThrownBy(() -> read("tls: {cert: " + cert + ", key: " + key + ", keystore: " + cert + "}\n", Map.of()))
        .hasMessageContaining("either cert and key, or keystore");
    assertThatThrownBy(() -> read("tls: {keystore: " + cert + "}\n", Map.of()))
        .hasMessageContaining("service.http.tls.password");
    assertThatThrownBy(() -> read("tls: {cert: " + dir.resolve("nope.pem") + ", key: " + key + "}\n", Map.of()))
        .hasMessageContaining("service.http.tls.cert").hasMessageContaining("cannot read");
    assertThatThrownBy(() -> read("tls: {cert: " + cert + ", kee: " + key + "}\n", Map.of()))
        .hasMessageContaining("service.http.tls.kee").hasMessageContaining("unknown field");
  }

  @Test
  void shouldRefuseANonLoopbackHostWithoutTlsAndAuthentication() {
    assertThatThrownBy(() -> load("host: 0.0.0.0\n")).isInstanceOf(SpecException.class)
        .hasMessageContaining("service.http.host").hasMessageContaining("neither TLS nor authentication")
        .hasMessageContaining("service.http.tls").hasMessageContaining("service.http.auth.token_env")
        .hasMessageContaining("127.0.0.1");
    assertThatThrownBy(() -> load("host: 0.0.0.0\nauth: {token: t}\n")).hasMessageContaining("no TLS");
    assertThatThrownBy(() -> load("host: 0.0.0.0\ntls: {cert: " + cert + ", key: " + key + "}\n"))
        .hasMessageContaining("no authentication");
  }

  @Test
  void shouldAcceptANonLoopbackHostWithTlsAndAToken() throws Exception {
    DimensionSpec spec = load("host: 0.0.0.0\ntls: {cert: " + cert + ", key: " + key + "}\nauth: {token: inline-t}\n");
    assertThat(spec.service().httpSecurity().token()).isEqualTo("inline-t");
    assertThat(spec.toString()).doesNotContain("inline-t");
    assertThat(spec.service().toString()).doesNotContain("inline-t");
  }
}
