package io.dimstream.history;

import io.dimstream.model.Sequence;
import io.dimstream.model.Version;

/**
 * A key's state after its newest event: that event's sequence and the version open after it (null when the key is
 * deleted). It is all the fast path needs; the topology reads it from the key's newest stored event.
 */
public record KeyState(Sequence lastSequence, Version open) {}
