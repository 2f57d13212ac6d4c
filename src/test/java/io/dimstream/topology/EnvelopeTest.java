package io.dimstream.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.codec.EventJson;
import io.dimstream.codec.StateBinary;
import io.dimstream.history.Scd2Fold;
import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeEvent;
import io.dimstream.model.Sequence;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.junit.jupiter.api.Test;

/** The repartition record carries the decoded event; records of older releases, without it, still apply. */
class EnvelopeTest {
  private static final byte[] KEY = "item-1".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VALUE = PersistentStateTest.item(1, "red", 10).getBytes(StandardCharsets.UTF_8);

  @Test
  void shouldCarryTheDecodedEventAfterTheOriginalKeyAndValue() {
    StateBinary binary = new StateBinary(PersistentStateTest.ITEMS);
    byte[] event = binary.encodeEvent(PersistentStateTest.event(1, "red", 10));

    Envelope back = Envelope.fromBytes(Envelope.accepted(KEY, VALUE, event).toBytes());

    assertThat(back.sourceKey()).isEqualTo(KEY);
    assertThat(back.sourceValue()).isEqualTo(VALUE);
    assertThat(binary.decodeEvent(BusinessKey.of(1L), back.event()))
        .isEqualTo(PersistentStateTest.event(1, "red", 10));
    assertThat(Envelope.fromBytes(Envelope.accepted(null, VALUE, null).toBytes()))
        .satisfies(e -> assertThat(e.sourceKey()).isNull())
        .satisfies(e -> assertThat(e.event()).isNull());
  }

  @Test
  void shouldIgnoreWhatAnOlderReleaseAppendedAfterTheValue() {
    byte[] json = new EventJson(PersistentStateTest.ITEMS).encodeEvent(PersistentStateTest.event(1, "red", 10));
    byte[] old = oldRecord(KEY, VALUE, json);

    Envelope back = Envelope.fromBytes(old);

    assertThat(back.sourceValue()).isEqualTo(VALUE);
    assertThat(back.event()).as("not our binary form: decode the value again").isNull();
  }

  @Test
  void shouldApplyRepartitionRecordsAnOlderReleaseWroteWithoutTheEvent() {
    try (TopologyRunner h = TopologyRunner.of(PersistentStateTest.ITEMS)) {
      // what a service stopped mid-stream by an older release leaves on the repartition topic
      TestInputTopic<byte[], byte[]> repartition = h.driver().createInputTopic(
          "dimstream-items-" + DimensionTopology.repartitionName(PersistentStateTest.ITEMS) + "-repartition",
          new ByteArraySerializer(), new ByteArraySerializer());
      byte[] canonical = new EventJson(PersistentStateTest.ITEMS).keyBytes(BusinessKey.of(1L));
      repartition.pipeInput(canonical, oldRecord(KEY, VALUE, null));
      repartition.pipeInput(canonical, oldRecord(KEY, PersistentStateTest.item(1, "blue", 20)
          .getBytes(StandardCharsets.UTF_8), "[[20],0,[\"blue\"]]".getBytes(StandardCharsets.UTF_8)));
      // and a record of this release after them
      h.send(PersistentStateTest.item(1, "green", 15));

      List<ChangeEvent> all = List.of(PersistentStateTest.event(1, "red", 10),
          PersistentStateTest.event(1, "blue", 20), PersistentStateTest.event(1, "green", 15));
      assertThat(h.history()).containsExactlyElementsOf(Scd2Fold.fold(PersistentStateTest.ITEMS, all));
      assertThat(h.history().get(0).validTo()).isEqualTo(Sequence.of(15));
    }
  }

  /** The envelope as releases before the carried event wrote it, with their optional trailing bytes. */
  private static byte[] oldRecord(byte[] key, byte[] value, byte[] trailing) {
    int extra = trailing == null ? 0 : trailing.length;
    ByteBuffer b = ByteBuffer.allocate(8 + key.length + value.length + extra);
    b.putInt(key.length).put(key).putInt(value.length).put(value);
    if (trailing != null) {
      b.put(trailing);
    }
    return b.array();
  }
}
