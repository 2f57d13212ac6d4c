package io.dimstream.compactor;

import io.dimstream.model.VersionChange;

/** Turns one versions-topic record back into a version change (null value = retraction). */
@FunctionalInterface
public interface VersionRecordDecoder {
  VersionChange decode(byte[] key, byte[] value);
}
