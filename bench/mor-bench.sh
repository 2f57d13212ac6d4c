#!/usr/bin/env bash
# Merge-on-read benchmark: JSON lines on stdout (machine size first).
# Usage: bench/mor-bench.sh [keys=1000000,10000000] [workDir] [cow]
# Commits of 100 / 10k / 100k changed versions into tables of the given key counts (one closed and one open
# version per key), each beside the plain-Parquet floor (the changed rows written as one file); "cow" adds the
# copy-on-write layout for comparison. Then position-index size and rebuild time, compaction, as-of scan times.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q test-compile
mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
exec java -Xmx${BENCH_HEAP:-8g} -Dlogback.configurationFile=src/test/resources/logback-test.xml \
  -cp "target/classes:target/test-classes:$(cat target/bench.classpath)" \
  io.dimstream.table.MergeOnReadBench "${1:-1000000,10000000}" "${2:-$(mktemp -d)}" "${@:3}"
