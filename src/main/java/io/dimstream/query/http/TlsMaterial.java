package io.dimstream.query.http;

import io.dimstream.spec.HttpSecurity;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The endpoint's key and certificates as JDK key stores, read from PEM files or a PKCS12 keystore. The same
 * material serves the endpoint and, as a client, forwards queries to other instances of the dimension: they share
 * the spec, so they present the same certificate (or one the same CA signed) and trust the same client CA.
 */
final class TlsMaterial {
  private static final String BEGIN_KEY = "-----BEGIN PRIVATE KEY-----";
  private static final String END_KEY = "-----END PRIVATE KEY-----";

  /** The identity: one private key with its certificate chain. */
  final KeyStore identity;
  /** The password of {@link #identity}'s key: the keystore's, or a random one for the in-memory store of PEM files. */
  final char[] keyPassword;
  /** The CA client certificates must chain to; null without mutual TLS. */
  final KeyStore clientCas;

  private TlsMaterial(KeyStore identity, char[] keyPassword, KeyStore clientCas) {
    this.identity = identity;
    this.keyPassword = keyPassword;
    this.clientCas = clientCas;
  }

  static TlsMaterial load(HttpSecurity.Tls tls) {
    try {
      KeyStore identity;
      char[] password;
      if (tls.pem()) {
        password = randomPassword();
        List<X509Certificate> chain = certificates(tls.cert());
        if (chain.isEmpty()) {
          throw new IllegalArgumentException("service.http.tls.cert: " + tls.cert() + " holds no PEM certificate. "
              + "Fix: give a file with '-----BEGIN CERTIFICATE-----' blocks, the endpoint's own certificate first");
        }
        PrivateKey key = privateKey(tls.key(), chain.get(0).getPublicKey().getAlgorithm());
        identity = KeyStore.getInstance("PKCS12");
        identity.load(null, null);
        identity.setKeyEntry("endpoint", key, password, chain.toArray(new Certificate[0]));
      } else {
        password = tls.password().toCharArray();
        identity = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(tls.keystore())) {
          identity.load(in, password);
        } catch (IOException e) {
          throw new IllegalArgumentException("service.http.tls.keystore: cannot open " + tls.keystore()
              + " as a PKCS12 keystore with the configured password (" + e.getMessage() + "). Fix: check the file "
              + "and service.http.tls.password_env", e);
        }
      }
      KeyStore cas = null;
      if (tls.clientCa() != null) {
        cas = trustStore(certificates(tls.clientCa()));
      }
      return new TlsMaterial(identity, password, cas);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("Cannot read the query endpoint's TLS material " + tls + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * The client side, for forwarding to another instance: presents this instance's certificate (for mutual TLS) and
   * trusts the certificates of this instance's chain and the client CA.
   */
  SSLContext clientContext() {
    try {
      List<X509Certificate> trusted = new ArrayList<>();
      for (String alias : Collections.list(identity.aliases())) {
        Certificate[] chain = identity.getCertificateChain(alias);
        if (chain != null) {
          for (Certificate c : chain) {
            trusted.add((X509Certificate) c);
          }
        }
      }
      if (clientCas != null) {
        for (String alias : Collections.list(clientCas.aliases())) {
          trusted.add((X509Certificate) clientCas.getCertificate(alias));
        }
      }
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(identity, keyPassword);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trustStore(trusted));
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("Cannot set up TLS for forwarding queries: " + e.getMessage(), e);
    }
  }

  private static KeyStore trustStore(List<X509Certificate> certificates) throws GeneralSecurityException,
      IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    int i = 0;
    for (X509Certificate c : certificates) {
      store.setCertificateEntry("trusted-" + i++, c);
    }
    return store;
  }

  private static List<X509Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
    List<X509Certificate> out = new ArrayList<>();
    try (InputStream in = Files.newInputStream(pem)) {
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        out.add((X509Certificate) c);
      }
    }
    return out;
  }

  /** An unencrypted PKCS#8 key ({@code BEGIN PRIVATE KEY}), the form the JDK reads without extra libraries. */
  private static PrivateKey privateKey(Path pem, String algorithm) throws IOException, GeneralSecurityException {
    String text = Files.readString(pem, StandardCharsets.US_ASCII);
    int begin = text.indexOf(BEGIN_KEY);
    int end = text.indexOf(END_KEY);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("service.http.tls.key: " + pem + " holds no unencrypted PKCS#8 key ('"
          + BEGIN_KEY + "'). Fix: convert it with 'openssl pkcs8 -topk8 -nocrypt -in " + pem + " -out key.pem'");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + BEGIN_KEY.length(), end));
    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  private static char[] randomPassword() {
    byte[] bytes = new byte[18];
    new SecureRandom().nextBytes(bytes);
    return Base64.getEncoder().encodeToString(bytes).toCharArray();
  }
}
