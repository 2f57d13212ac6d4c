package io.dimstream.storage;

/**
 * One object (file) of a table.
 *
 * @param key              its key relative to the table root, '/'-separated ({@code _delta_log/00000000000000000003.json})
 * @param size             its length in bytes
 * @param lastModifiedMillis its modification time (object stores: the time the store finished the write)
 */
public record ObjectInfo(String key, long size, long lastModifiedMillis) {}
