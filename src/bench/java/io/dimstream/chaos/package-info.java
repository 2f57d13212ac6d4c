/**
 * {@code bench/chaos}: a secured three-broker cluster, an S3 server and three service instances run as separate
 * processes under a seeded schedule of faults, and a checker that compares the table with the reference fold.
 */
package io.dimstream.chaos;
