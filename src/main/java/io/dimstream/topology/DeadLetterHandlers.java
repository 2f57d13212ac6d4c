package io.dimstream.topology;

import io.dimstream.change.RejectReason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' last line of defence for one record: an exception the processors did not turn into a dead letter
 * themselves (processing, serialisation, a send the broker refuses for that record) sends the change record that
 * caused it to the DLQ, with a reason, and the stream thread moves on instead of failing on it again after every
 * restart. Errors that are not about one record (authorisation, fencing, a lost broker) still fail as before.
 */
public final class DeadLetterHandlers {
  /** Streams property naming the dead-letter topic; set by {@link DimensionTopology#config}. */
  public static final String DLQ_TOPIC_CONFIG = "dimstream.dlq.topic";
  /** Streams property: the largest record the service writes (see {@link io.dimstream.spec.SizePolicy}). */
  public static final String OUTPUT_LIMIT_CONFIG = "dimstream.output.limit.bytes";
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterHandlers.class);
  private static final String REPARTITION_SUFFIX = "-repartition";

  private DeadLetterHandlers() {}

  /** Turns an exception thrown while processing one record into its dead letter. */
  public static final class Processing implements ProcessingExceptionHandler {
    private Target target;

    @Override
    public void configure(Map<String, ?> configs) {
      target = Target.from(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, org.apache.kafka.streams.processor.api.Record<?, ?> record,
        Exception exception) {
      for (Throwable t = exception; t != null; t = t.getCause()) {
        if (t instanceof ThreadStoppingException) {
          // not about the record: the processor lacks state it must not run without
          LOG.error("{}; the stream thread stops", t.getMessage());
          return Response.fail();
        }
      }
      LOG.error("Processing failed for the record at {}/{}@{} in {}; sent to the DLQ as {}", context.topic(),
          context.partition(), context.offset(), context.processorNodeId(), RejectReason.PROCESSING_ERROR, exception);
      return Response.resume(List.of(target.deadLetter(context, RejectReason.PROCESSING_ERROR,
          "processing failed in " + context.processorNodeId() + ": " + exception)));
    }
  }

  /** Turns a serialisation error or a send refused for one record into its dead letter. */
  public static final class Production implements ProductionExceptionHandler {
    private Target target;

    @Override
    public void configure(Map<String, ?> configs) {
      target = Target.from(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
        Exception exception) {
      if (exception instanceof RetriableException) {
        return Response.retry();
      }
      boolean tooLarge = exception instanceof RecordTooLargeException
          || exception instanceof RecordBatchTooLargeException;
      if (!tooLarge && !(exception instanceof InvalidRecordException)) {
        LOG.error("Cannot write to {}: {}; the stream thread stops", record.topic(), exception.toString());
        return Response.fail();
      }
      String reason = tooLarge ? RejectReason.TOO_LARGE : RejectReason.PROCESSING_ERROR;
      LOG.error("The broker refused the record for {} produced from {}/{}@{}: {}; the change record goes to the DLQ "
          + "as {}", record.topic(), context.topic(), context.partition(), context.offset(), exception, reason);
      return Response.resume(List.of(target.deadLetter(context, reason, "writing the record to " + record.topic()
          + " failed: " + exception + (tooLarge ? "; raise the topic's max.message.bytes and restart dimstream, "
          + "which sizes its producers from service.max_record_bytes" : ""))));
    }

    @Override
    public Response handleSerializationError(ErrorHandlerContext context, ProducerRecord record, Exception exception,
        SerializationExceptionOrigin origin) {
      LOG.error("Cannot serialise the {} of the record for {} produced from {}/{}@{}; sent to the DLQ as {}", origin,
          record.topic(), context.topic(), context.partition(), context.offset(), RejectReason.PROCESSING_ERROR,
          exception);
      return Response.resume(List.of(target.deadLetter(context, RejectReason.PROCESSING_ERROR,
          "serialising the " + origin + " for " + record.topic() + " failed: " + exception)));
    }
  }

  /** Where dead letters go and how large they may be. */
  private record Target(String topic, int limit) {
    static Target from(Map<String, ?> configs) {
      Object topic = configs.get(DLQ_TOPIC_CONFIG);
      if (topic == null) {
        throw new IllegalStateException(DLQ_TOPIC_CONFIG + " is not set; build the Streams properties with "
            + "DimensionTopology.config");
      }
      Object limit = configs.get(OUTPUT_LIMIT_CONFIG);
      return new Target(topic.toString(), limit == null ? Integer.MAX_VALUE : Integer.parseInt(limit.toString()));
    }

    /**
     * The change record being processed, unchanged, with the error headers: from the changes topic as it is, from
     * the repartition topic unwrapped from its {@link Envelope}. A record of another repartition topic of the
     * application (an enrichment's facts, in their binary form) is no envelope: it goes as it is.
     */
    ProducerRecord<byte[], byte[]> deadLetter(ErrorHandlerContext context, String reason, String detail) {
      byte[] key = context.sourceRawKey();
      byte[] value = context.sourceRawValue();
      if (context.topic() != null && context.topic().endsWith(REPARTITION_SUFFIX) && value != null) {
        try {
          Envelope env = Envelope.fromBytes(value);
          key = env.sourceKey();
          value = env.sourceValue();
        } catch (RuntimeException notAnEnvelope) {
          // its lengths run past its end: sent unwrapped rather than failing the stream thread
        }
      }
      Headers headers = DecodeProcessor.errorHeaders(
          context.headers() == null ? new RecordHeaders() : context.headers(), reason, detail);
      long room = (long) limit - io.dimstream.spec.SizePolicy.HEADER_ALLOWANCE - (key == null ? 0 : key.length)
          - RecordSizes.headerBytes(headers);
      if (value != null && value.length > room) {
        headers.add(RecordSizes.VALUE_BYTES_HEADER, Integer.toString(value.length).getBytes(StandardCharsets.UTF_8));
        value = Arrays.copyOf(value, (int) Math.max(0, room));
      }
      return new ProducerRecord<>(topic, null, context.timestamp(), key, value, headers);
    }
  }
}
