package io.dimstream.service;

/** A record the backfill rejects, with its line so dead letters are written in input order. */
record DeadLetter(long line, String reason, String detail, byte[] value) {}
