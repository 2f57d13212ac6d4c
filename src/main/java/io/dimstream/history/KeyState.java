package io.dimstream.history;

import io.dimstream.model.Sequence;
import io.dimstream.model.Version;

/**
 * What the current-row store holds per key: the sequence of the key's newest event and the version open after
 * it (null when the key is deleted). It is all the fast path needs.
 */
public record KeyState(Sequence lastSequence, Version open) {}
