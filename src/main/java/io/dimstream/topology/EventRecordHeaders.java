package io.dimstream.topology;

import io.dimstream.model.EventRecords;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** The header of event records ({@link EventRecords}) on Kafka records: to mark one, and to tell one from a version. */
public final class EventRecordHeaders {
  private EventRecordHeaders() {}

  /** Whether a versions-topic record with these headers is an event record. */
  public static boolean isEvent(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(EventRecords.KIND_HEADER);
    return h != null && EventRecords.isEventKind(h.value());
  }

  /** Marks {@code headers} as an event record's. */
  public static Headers mark(Headers headers) {
    return headers.add(EventRecords.KIND_HEADER, EventRecords.eventKind());
  }
}
