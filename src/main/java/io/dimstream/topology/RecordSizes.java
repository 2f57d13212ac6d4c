package io.dimstream.topology;

import io.dimstream.change.RejectReason;
import io.dimstream.spec.SizePolicy;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Record;

/** Measures change records against the {@link SizePolicy} and builds the dead-letter copy of a too-large one. */
final class RecordSizes {
  /** Header on a too-large DLQ record: the original record's size (key + value + headers), in bytes. */
  static final String RECORD_BYTES_HEADER = "dimstream.record.bytes";
  /** Header on a too-large DLQ record: the original value's size; more than the DLQ value's when it was cut. */
  static final String VALUE_BYTES_HEADER = "dimstream.value.bytes";

  private final SizePolicy policy;

  RecordSizes(SizePolicy policy) {
    this.policy = policy;
  }

  SizePolicy policy() {
    return policy;
  }

  /** Key, value and header bytes: what the size policy counts. */
  static long size(byte[] key, byte[] value, Headers headers) {
    return len(key) + len(value) + headerBytes(headers);
  }

  static long headerBytes(Headers headers) {
    long n = 0;
    for (Header h : headers) {
      n += h.key().getBytes(StandardCharsets.UTF_8).length + len(h.value());
    }
    return n;
  }

  boolean tooLarge(long size) {
    return size > policy.maxRecordBytes();
  }

  /**
   * The DLQ copy of a change record over the policy: its key, its headers plus the error headers and the sizes, and
   * the value cut to what fits the dead-letter topic (the whole value when it fits).
   */
  Record<byte[], Envelope> deadLetter(Record<byte[], byte[]> record, long size) {
    byte[] value = record.value();
    int valueBytes = value == null ? 0 : value.length;
    long keyAndHeaders = len(record.key()) + headerBytes(record.headers());
    int kept = policy.deadLetterValueBytes(valueBytes, (int) Math.min(Integer.MAX_VALUE, keyAndHeaders));
    byte[] key = record.key();
    if (keyAndHeaders > policy.outputLimit() / 2 && key != null) {
      // only a key near the topic's own limit gets here; its prefix still tells the user which record it was
      key = Arrays.copyOf(key, Math.min(key.length, policy.outputLimit() / 4));
    }
    String detail = "the record is " + size + " bytes (key " + len(record.key()) + ", value " + valueBytes
        + ", headers " + headerBytes(record.headers()) + "), over the limit of " + policy.maxRecordBytes()
        + " bytes per change record (service.max_record_bytes, default the changes topic's max.message.bytes); "
        + (kept < valueBytes ? "this copy keeps the first " + kept + " bytes of the value" : "this copy keeps the "
        + "whole value") + ". Raise service.max_record_bytes (and the changes topic's max.message.bytes) to apply "
        + "records this large, then replay it from the original source";
    Headers headers = DecodeProcessor.errorHeaders(record.headers(), RejectReason.TOO_LARGE, detail);
    headers.remove(RECORD_BYTES_HEADER);
    headers.remove(VALUE_BYTES_HEADER);
    headers.add(RECORD_BYTES_HEADER, Long.toString(size).getBytes(StandardCharsets.UTF_8));
    headers.add(VALUE_BYTES_HEADER, Integer.toString(valueBytes).getBytes(StandardCharsets.UTF_8));
    byte[] cut = value == null || kept == valueBytes ? value : Arrays.copyOf(value, kept);
    return new Record<>(key, Envelope.rejected(key, cut), record.timestamp(), headers);
  }

  private static long len(byte[] a) {
    return a == null ? 0 : a.length;
  }
}
