package io.dimstream.enrich.streams;

import io.dimstream.change.DeadLetters;
import io.dimstream.codec.EventJson;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.FactBinary;
import io.dimstream.enrich.FactDecoder;
import io.dimstream.enrich.FactShape;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads each fact record and keys it by the canonical bytes of the business key it joins to, so that the repartition
 * puts it in the partition of the dimension's versions topic that holds that key's versions; its value becomes the
 * decoded fact's {@link FactBinary} form, marked by the header {@value #BINARY_HEADER}, so the join does not read the
 * record again. A record that cannot be read is forwarded unchanged with a null key and the reason in headers, for
 * the dead-letter topic.
 */
final class FactKeyProcessor implements Processor<byte[], byte[], byte[], byte[]> {
  /** Header of a repartitioned fact in its binary form (a record without it holds the fact as it was sent). */
  static final String BINARY_HEADER = "dimstream.fact.binary";
  private static final Logger LOG = LoggerFactory.getLogger(FactKeyProcessor.class);
  private static final Header BINARY = new RecordHeader(BINARY_HEADER, new byte[] {FactBinary.FORMAT});

  private final EnrichmentSpec spec;
  private final FactDecoder decoder;
  private final FactShape shape;
  private final EventJson keys;
  private final FactBinary binary;
  private ProcessorContext<byte[], byte[]> context;

  FactKeyProcessor(EnrichmentSpec spec) {
    this.spec = spec;
    this.decoder = new FactDecoder(spec);
    this.shape = new FactShape(spec);
    this.keys = new EventJson(spec.dimension());
    this.binary = new FactBinary(spec);
  }

  @Override
  public void init(ProcessorContext<byte[], byte[]> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    FactDecoder.Result r = decoder.decode(record.value());
    if (r instanceof FactDecoder.Accepted a) {
      context.forward(new Record<>(keys.keyBytes(shape.businessKey(a.fact())), binary.encode(a.fact()),
          record.timestamp(), new RecordHeaders(new Header[] {BINARY})));
      return;
    }
    FactDecoder.Rejection why = ((FactDecoder.Rejected) r).rejection();
    String where = context.recordMetadata().map(m -> m.topic() + "/" + m.partition() + "@" + m.offset()).orElse("?");
    LOG.warn("Fact record {} of enrichment {} rejected ({}): {}", where, spec.name(), why.reason(), why.detail());
    Headers headers = new RecordHeaders(record.headers().toArray());
    DeadLetters.headers(why.reason(), why.detail()).forEach((k, v) -> headers.add(k, v.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    context.forward(new Record<>(null, record.value(), record.timestamp(), headers));
  }
}
