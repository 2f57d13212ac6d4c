package io.dimstream.query.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Self-signed certificates for 127.0.0.1 made by the JDK's keytool, as PKCS12 and as PEM files. */
public final class TestCertificates {
  public static final String PASSWORD = "test-store-pass";

  /** One identity: its PKCS12 keystore and the same certificate and key as PEM. */
  public record Identity(String name, Path keystore, Path certPem, Path keyPem) {
    public KeyStore load() throws Exception {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(keystore)) {
        ks.load(in, PASSWORD.toCharArray());
      }
      return ks;
    }

    public X509Certificate certificate() throws Exception {
      return (X509Certificate) load().getCertificate(name);
    }
  }

  private TestCertificates() {}

  public static Identity create(Path dir, String name) throws Exception {
    Path p12 = dir.resolve(name + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=" + name, "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
        "-keystore", p12.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("keytool failed: " + out);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      ks.load(in, PASSWORD.toCharArray());
    }
    Path cert = dir.resolve(name + "-cert.pem");
    Path key = dir.resolve(name + "-key.pem");
    Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate(name).getEncoded()));
    Files.writeString(key, pem("PRIVATE KEY", ks.getKey(name, PASSWORD.toCharArray()).getEncoded()));
    return new Identity(name, p12, cert, key);
  }

  /** A client context trusting {@code trusted}'s certificate and presenting {@code client}'s, if not null. */
  public static SSLContext client(Identity trusted, Identity client) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", trusted.certificate());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    if (client != null) {
      kmf.init(client.load(), PASSWORD.toCharArray());
    } else {
      KeyStore empty = KeyStore.getInstance("PKCS12");
      empty.load(null, null);
      kmf.init(empty, new char[0]);
    }
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ctx;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
