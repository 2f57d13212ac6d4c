package io.dimstream.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster's TLS material, made with the JDK's {@code keytool}: one self-signed broker key pair whose
 * certificate names every address the brokers are reached at, in a PKCS12 key store, and a trust store holding that
 * certificate for the clients.
 */
final class Tls {
  static final String KEYSTORE = "broker.p12";
  static final String TRUSTSTORE = "trust.p12";

  private Tls() {}

  /** Writes the key store and the trust store into {@code dir}, for a certificate valid for {@code ipAddresses}. */
  static void create(Path dir, List<String> ipAddresses, String password) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path keystore = dir.resolve(KEYSTORE);
    Path truststore = dir.resolve(TRUSTSTORE);
    Path cert = dir.resolve("broker.crt");
    Files.deleteIfExists(keystore);
    Files.deleteIfExists(truststore);
    StringBuilder san = new StringBuilder("SAN=DNS:localhost");
    ipAddresses.forEach(ip -> san.append(",IP:").append(ip));
    keytool(dir, password, "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "30",
        "-dname", "CN=dimstream-chaos-broker", "-ext", san.toString(), "-storetype", "PKCS12",
        "-keystore", keystore.toString(), "-storepass:env", Secrets.ENV_STORE);
    keytool(dir, password, "-exportcert", "-alias", "broker", "-rfc", "-file", cert.toString(), "-keystore", keystore.toString(),
        "-storepass:env", Secrets.ENV_STORE);
    keytool(dir, password, "-importcert", "-noprompt", "-alias", "broker", "-file", cert.toString(), "-storetype", "PKCS12",
        "-keystore", truststore.toString(), "-storepass:env", Secrets.ENV_STORE);
  }

  private static void keytool(Path dir, String password, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("keytool.log").toFile()));
    pb.environment().put(Secrets.ENV_STORE, password);
    int code = pb.start().waitFor();
    if (code != 0) {
      throw new IOException("keytool " + args[0] + " exited " + code + "; see " + dir.resolve("keytool.log"));
    }
  }
}
