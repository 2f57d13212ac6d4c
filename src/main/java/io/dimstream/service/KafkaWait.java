package io.dimstream.service;

import io.dimstream.broker.BrokerException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the service start before its Kafka cluster: a start step that needs the brokers runs once they answer, and
 * runs again when it failed because they stopped answering meanwhile. Each attempt is logged with its reason
 * ({@code Waiting for Kafka at <servers>: <reason>}); the wait backs off from 1 s to {@link #MAX_BACKOFF} and
 * ends with a {@link ServiceException} after {@code limit} ({@code service.kafka_wait}). A refusal that waiting
 * cannot cure (wrong credentials, TLS trust, missing permissions) fails at once.
 */
final class KafkaWait {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaWait.class);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  /** How long one look at the cluster may take: a TCP connect per address, then one admin request. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  private final Map<String, Object> kafka;
  private final Duration limit;
  private final long limitMillis;
  private final long startedNanos = System.nanoTime();
  private Duration backoff = Duration.ofSeconds(1);
  /** Set once a step succeeded: later steps skip the connection check. */
  private boolean answered;
  /** Set once a wait was logged: the wait's end is logged too, however short it was. */
  private boolean waitLogged;

  KafkaWait(Map<String, Object> kafka, Duration limit) {
    this.kafka = Map.copyOf(kafka);
    this.limit = limit;
    this.limitMillis = limit.compareTo(Duration.ofDays(365_000)) > 0 ? Long.MAX_VALUE : limit.toMillis();
  }

  /**
   * Runs {@code step} once some broker accepts connections; when it fails because the cluster did not answer in
   * time, waits until the cluster answers an admin request and runs it again.
   */
  <T> T run(String what, Supplier<T> step) {
    if (!answered) {
      awaitConnection();
    }
    while (true) {
      try {
        T result = step.get();
        answered = true;
        return result;
      } catch (BrokerException | ServiceException e) {
        if (!isUnreachable(e)) {
          throw e;
        }
        waitOrGiveUp("could not " + what + ": " + rootMessage(e));
        awaitCluster();
      }
    }
  }

  /** Returns once some bootstrap address accepts a TCP connection: cheap enough to check before every start. */
  private void awaitConnection() {
    for (String reason = tcpReason(); reason != null; reason = tcpReason()) {
      waitOrGiveUp(reason);
    }
    if (waitLogged) {
      LOG.info("Kafka at {} accepts connections after {} s of waiting", servers(), waitedMillis() / 1000);
    }
  }

  /** Returns once the brokers accept a connection and answer a describe-cluster request. */
  private void awaitCluster() {
    for (String reason = probe(); reason != null; reason = probe()) {
      waitOrGiveUp(reason);
    }
    LOG.info("Kafka at {} answers after {} s of waiting", servers(), waitedMillis() / 1000);
  }

  /** Null when the cluster answers, else why not. */
  private String probe() {
    String tcp = tcpReason();
    if (tcp != null) {
      return tcp;
    }
    Map<String, Object> props = new HashMap<>(kafka);
    int ms = (int) PROBE_TIMEOUT.toMillis();
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    try (Admin admin = Admin.create(props)) {
      admin.describeCluster().nodes().get(ms + 2_000L, TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof AuthenticationException || cause instanceof AuthorizationException) {
        throw ServiceErrors.kafkaRefused(servers(), cause);
      }
      return "the brokers accept connections but did not answer: " + cause.getMessage();
    } catch (java.util.concurrent.TimeoutException e) {
      return "the brokers accept connections but did not answer within " + ms / 1000 + " s";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ServiceErrors.kafkaUnreachable(servers(), limit, "interrupted while waiting");
    } catch (org.apache.kafka.common.KafkaException e) {
      // a client that cannot even be built (a bad property, an unreadable trust store): waiting does not help
      throw ServiceErrors.kafkaRefused(servers(), e);
    }
  }

  /** Null when some bootstrap address accepts a TCP connection, else each address's error. */
  private String tcpReason() {
    List<String> errors = new ArrayList<>();
    for (String server : servers().split(",")) {
      String s = server.strip();
      int colon = s.lastIndexOf(':');
      if (colon < 0) {
        errors.add(s + ": no port");
        continue;
      }
      String host = s.substring(0, colon).replace("[", "").replace("]", "");
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, Integer.parseInt(s.substring(colon + 1))),
            (int) Math.min(PROBE_TIMEOUT.toMillis(), 3_000));
        return null;
      } catch (IOException | IllegalArgumentException e) {
        errors.add(s + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
      }
    }
    return String.join("; ", errors);
  }

  private void waitOrGiveUp(String reason) {
    long waited = waitedMillis();
    if (waited >= limitMillis) {
      throw ServiceErrors.kafkaUnreachable(servers(), limit, reason);
    }
    long sleep = Math.min(backoff.toMillis(), limitMillis - waited);
    waitLogged = true;
    LOG.warn("Waiting for Kafka at {}: {}; trying again in {} s ({} s waited, {})", servers(), reason,
        Math.max(1, sleep / 1000), waited / 1000, limitMillis == Long.MAX_VALUE
            ? "waiting as long as it takes (service.kafka_wait)"
            : "giving up after " + limit.toSeconds() + " s (service.kafka_wait)");
    try {
      Thread.sleep(sleep);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ServiceErrors.kafkaUnreachable(servers(), limit, "interrupted while waiting");
    }
    backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
  }

  private long waitedMillis() {
    return (System.nanoTime() - startedNanos) / 1_000_000;
  }

  private String servers() {
    return String.valueOf(kafka.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
  }

  /** True when {@code e} says the cluster did not answer in time, not that it refused. */
  static boolean isUnreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.apache.kafka.common.errors.TimeoutException
          || t instanceof java.util.concurrent.TimeoutException
          || t instanceof org.apache.kafka.common.errors.DisconnectException) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }
}
