package io.dimstream.spec;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the query endpoint protects itself: TLS (a PEM certificate and key, or a PKCS12 keystore), a bearer token,
 * and client certificates checked against a CA (mutual TLS). The defaults protect nothing, which is only allowed
 * while the endpoint binds a loopback address (see {@link #exposureProblem}).
 *
 * <p>{@link #toString()} never shows the token or the keystore password: settings end up in logs.
 *
 * @param tls                 TLS material, or null for plain HTTP
 * @param token               the bearer token every request must carry, or null for none
 * @param insecureBindAllowed the operator's explicit choice to serve a non-loopback address without TLS or
 *                            authentication, for a container whose port mapping or proxy keeps the port private
 */
public record HttpSecurity(Tls tls, String token, boolean insecureBindAllowed) {
  /** Plain HTTP, no authentication: the default on loopback. */
  public static final HttpSecurity NONE = new HttpSecurity(null, null);

  public HttpSecurity(Tls tls, String token) {
    this(tls, token, false);
  }

  /** The same, allowed to bind any address unprotected (the operator keeps the port private by other means). */
  public HttpSecurity allowingInsecureBind() {
    return new HttpSecurity(tls, token, true);
  }

  /**
   * The endpoint's TLS material: either {@code cert} and {@code key} (PEM) or {@code keystore} (PKCS12) with its
   * {@code password}; {@code clientCa} (PEM, optional) turns on mutual TLS: clients must present a certificate it
   * signed.
   */
  public record Tls(Path cert, Path key, Path keystore, String password, Path clientCa) {
    public boolean pem() {
      return cert != null;
    }

    @Override
    public String toString() {
      return pem() ? "Tls[cert=" + cert + ", key=" + key + ", clientCa=" + clientCa + "]"
          : "Tls[keystore=" + keystore + ", password=" + (password == null ? "none" : "***") + ", clientCa="
              + clientCa + "]";
    }
  }

  public boolean tlsOn() {
    return tls != null;
  }

  public boolean clientCertificates() {
    return tls != null && tls.clientCa() != null;
  }

  /** Whether a request is authenticated at all: by a bearer token or by a client certificate. */
  public boolean authenticates() {
    return token != null || clientCertificates();
  }

  /** How the endpoint authenticates, for log lines: never the secret itself. */
  public String describe() {
    if (!tlsOn() && token == null) {
      return "plain HTTP, no authentication";
    }
    String auth = token != null && clientCertificates() ? "bearer token and client certificate"
        : token != null ? "bearer token" : clientCertificates() ? "client certificate" : "no authentication";
    return (tlsOn() ? "TLS" : "plain HTTP") + ", " + auth;
  }

  /** How to fix what {@link #exposureProblem} reports. */
  public static final String EXPOSURE_FIX = "configure service.http.tls (cert and key, or keystore and password) and "
      + "service.http.auth.token_env (or service.http.tls.client_ca for client certificates), or bind "
      + "service.http.host: 127.0.0.1";

  /**
   * Why binding {@code host} with these settings is refused, if it is ({@link #EXPOSURE_FIX} says what to do):
   * anything but a loopback address needs TLS and a way to authenticate, or queries (and tokens) would cross the
   * network in the clear.
   */
  public Optional<String> exposureProblem(String host) {
    if (insecureBindAllowed || loopback(host) || (tlsOn() && authenticates())) {
      return Optional.empty();
    }
    String missing = !tlsOn() && !authenticates() ? "neither TLS nor authentication"
        : !tlsOn() ? "no TLS" : "no authentication";
    return Optional.of("the query endpoint would listen on " + host + ", which is not a loopback address, with "
        + missing + ", so anyone on the network could read the dimension");
  }

  private static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return "HttpSecurity[tls=" + tls + ", token=" + (token == null ? "none" : "***") + ", insecureBindAllowed="
        + insecureBindAllowed + "]";
  }
}
