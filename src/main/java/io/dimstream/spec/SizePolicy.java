package io.dimstream.spec;

/**
 * How large the records of one dimension may be, from the change record the service accepts to every record it
 * writes itself.
 *
 * <p>A change record is measured as its key, value and header bytes. One of at most {@link #maxRecordBytes()} is
 * applied; a larger one goes to the dead-letter topic as {@code too-large}. Every record the service writes is then
 * bounded by construction, and {@link #outputLimit()} covers each of them:
 * <ul>
 *   <li>a dead-letter copy: the original record plus error headers of at most {@link #HEADER_ALLOWANCE} bytes;</li>
 *   <li>a repartition record: the canonical key plus the original key and value, 8 bytes of framing, and the
 *       decoded event when it is at most {@link #maxEventBytes()} in the engine's form;</li>
 *   <li>a version record and a current-row changelog record: the key and one version (at most
 *       {@link #maxEventBytes()} in the engine's form);</li>
 *   <li>an event-store changelog record: the key, one event and the version open after it.</li>
 * </ul>
 * An event whose decoded form exceeds {@link #maxEventBytes()} (possible when a compact input such as Avro expands)
 * is dead-lettered as {@code too-large} before the engine stores anything.
 *
 * @param maxRecordBytes the largest change record applied, in bytes; positive
 */
public record SizePolicy(int maxRecordBytes) {
  /** Room for error headers, record keys and Kafka's batch framing on top of the payloads. */
  public static final int HEADER_ALLOWANCE = 64 * 1024;
  /** The largest {@code service.max_record_bytes}: three times it plus allowances stays below 2 GiB. */
  public static final int MAX_RECORD_BYTES_CEILING = 512 * 1024 * 1024;
  /** Kafka's default {@code message.max.bytes}, used when no changes topic tells otherwise (tests, replay). */
  public static final int KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

  public SizePolicy {
    if (maxRecordBytes <= 0 || maxRecordBytes > MAX_RECORD_BYTES_CEILING) {
      throw new IllegalArgumentException("maxRecordBytes must be in 1.." + MAX_RECORD_BYTES_CEILING + ", got "
          + maxRecordBytes);
    }
  }

  /** The spec's own limit, or {@code changesTopicMaxMessageBytes} when the spec leaves it to the topic. */
  public static SizePolicy of(ServiceSettings settings, int changesTopicMaxMessageBytes) {
    int configured = settings.maxRecordBytes();
    return new SizePolicy(configured > 0 ? configured
        : Math.min(MAX_RECORD_BYTES_CEILING, changesTopicMaxMessageBytes));
  }

  /** The policy when no broker is asked: the spec's limit, else Kafka's default topic limit. */
  public static SizePolicy of(ServiceSettings settings) {
    return of(settings, KAFKA_DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** The largest event, in the engine's stored form, the engine applies. */
  public int maxEventBytes() {
    return maxRecordBytes + HEADER_ALLOWANCE;
  }

  /**
   * The limit every record the service writes stays within: producers' {@code max.request.size} and the
   * {@code max.message.bytes} of the repartition, changelog, versions and dead-letter topics. Three events' worth
   * (key, event and version of an event-store changelog record) plus framing.
   */
  public int outputLimit() {
    return 3 * maxEventBytes() + HEADER_ALLOWANCE;
  }

  /**
   * How many bytes of a too-large value its dead-letter copy keeps, given the key and header bytes the copy carries:
   * the whole value when the copy fits {@link #outputLimit()}, else the prefix that does.
   */
  public int deadLetterValueBytes(int valueBytes, int keyAndHeaderBytes) {
    long room = (long) outputLimit() - HEADER_ALLOWANCE - keyAndHeaderBytes;
    return (int) Math.max(0, Math.min(valueBytes, room));
  }
}
