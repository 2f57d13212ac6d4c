/** The benchmark suite that {@code bench/run} builds and runs; never part of {@code mvn verify}. */
package io.dimstream.bench;
