package io.dimstream.enrich.streams;

import io.dimstream.change.DeadLetters;
import io.dimstream.codec.EventJson;
import io.dimstream.enrich.EnrichmentSpec;
import io.dimstream.enrich.FactDecoder;
import io.dimstream.enrich.FactShape;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads each fact record and keys it by the canonical bytes of the business key it joins to, so that the repartition
 * puts it in the partition of the dimension's versions topic that holds that key's versions. A record that cannot be
 * read is forwarded unchanged with a null key and the reason in headers, for the dead-letter topic.
 */
final class FactKeyProcessor implements Processor<byte[], byte[], byte[], byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(FactKeyProcessor.class);

  private final EnrichmentSpec spec;
  private final FactDecoder decoder;
  private final FactShape shape;
  private final EventJson keys;
  private ProcessorContext<byte[], byte[]> context;

  FactKeyProcessor(EnrichmentSpec spec) {
    this.spec = spec;
    this.decoder = new FactDecoder(spec);
    this.shape = new FactShape(spec);
    this.keys = new EventJson(spec.dimension());
  }

  @Override
  public void init(ProcessorContext<byte[], byte[]> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    FactDecoder.Result r = decoder.decode(record.value());
    if (r instanceof FactDecoder.Accepted a) {
      context.forward(record.withKey(keys.keyBytes(shape.businessKey(a.fact()))));
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
