package io.dimstream.service;

import io.dimstream.model.ChangeEvent;

/** A decoded event of the backfill input with its 1-based line (its arrival position) and its unchanged record. */
record Arrival(long line, ChangeEvent event, byte[] value) {}
