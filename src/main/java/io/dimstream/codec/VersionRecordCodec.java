package io.dimstream.codec;

import io.dimstream.model.BusinessKey;
import io.dimstream.model.ChangeKind;
import io.dimstream.model.Sequence;
import io.dimstream.model.Version;
import io.dimstream.model.VersionChange;
import io.dimstream.spec.DimensionSpec;
import io.dimstream.spec.OutputFormat;

/**
 * The record format of a dimension's versions topic, as chosen by the spec's {@code versions_format}: the record key
 * is always the JSON identity of {@link VersionJson#encodeKey} (so partitioning and compaction do not depend on the
 * format); the value is a JSON object ({@link VersionJson}) or an Avro binary record ({@link VersionAvro}), and null
 * for a retraction. Implementations are immutable and thread-safe.
 */
public sealed interface VersionRecordCodec permits VersionJson, VersionAvro {

  /** The codec of {@code spec.outputFormat()}. */
  static VersionRecordCodec forSpec(DimensionSpec spec) {
    return spec.outputFormat() == OutputFormat.AVRO ? new VersionAvro(spec) : new VersionJson(spec);
  }

  /** The record key of the version {@code (key, validFrom)}: the same JSON bytes in every format. */
  byte[] encodeKey(BusinessKey key, Sequence validFrom);

  /**
   * The record value of an upserted version.
   *
   * @throws IllegalArgumentException when {@code kind} is {@link ChangeKind#RETRACT} (a retraction's value is null)
   */
  byte[] encodeValue(Version version, ChangeKind kind);

  /**
   * The version change a versions-topic record stands for: a {@link VersionChange.Retraction} when {@code value} is
   * null, else a {@link VersionChange.Upsert}. Fits {@code io.dimstream.compactor.VersionRecordDecoder}.
   *
   * @throws IllegalArgumentException when the key or value is not a record of this format and dimension
   */
  VersionChange decodeChange(byte[] key, byte[] value);

  /**
   * An encoder for one thread at a time (one per stream task), which may reuse buffers between records; the same
   * bytes as {@link #encodeKey} and {@link #encodeValue}.
   */
  default RecordEncoder encoder() {
    return new RecordEncoder() {
      @Override
      public byte[] encodeKey(BusinessKey key, Sequence validFrom) {
        return VersionRecordCodec.this.encodeKey(key, validFrom);
      }

      @Override
      public byte[] encodeValue(Version version, ChangeKind kind) {
        return VersionRecordCodec.this.encodeValue(version, kind);
      }
    };
  }

  /** Encodes record keys and values as the codec does; not thread-safe (see {@link #encoder}). */
  interface RecordEncoder {
    /** As {@link VersionRecordCodec#encodeKey}. */
    byte[] encodeKey(BusinessKey key, Sequence validFrom);

    /** As {@link VersionRecordCodec#encodeValue}. */
    byte[] encodeValue(Version version, ChangeKind kind);
  }
}
