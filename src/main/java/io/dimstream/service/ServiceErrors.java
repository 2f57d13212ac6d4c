package io.dimstream.service;

import java.nio.file.Path;

/** Builds the errors of a running dimension: what happened, why, and how to fix it. */
final class ServiceErrors {
  private ServiceErrors() {}

  static ServiceException noBroker(Path hint) {
    return new ServiceException("No Kafka to talk to: the spec has no service.kafka.bootstrap.servers, "
        + "--bootstrap-servers was not given, and no embedded broker of a running `dimstream run` was found (" + hint
        + "). Fix: start `dimstream run --config ...` first, or pass --bootstrap-servers host:port");
  }

  static ServiceException topicReadTimedOut(String topic) {
    return new ServiceException("Reading " + topic + " to its end took over 2 minutes; is the broker up?");
  }
}
