#!/usr/bin/env bash
# Scale-out of the table writer: the same changes committed by 1 writer (4 partitions) and by 2 concurrent writers
# (2 partitions each) into a merge-on-read table, alternating 1, 2, 1, 2. JSON lines on stdout (machine first).
# Usage: bench/scale-out-bench.sh [keys=200000] [rounds=30] [changesPerPartitionPerRound=2000] [workDir]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q test-compile
mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
exec java -Xmx${BENCH_HEAP:-4g} -Dlogback.configurationFile=src/test/resources/logback-test.xml \
  -cp "target/classes:target/test-classes:$(cat target/bench.classpath)" \
  io.dimstream.table.ScaleOutBench "${1:-200000}" "${2:-30}" "${3:-2000}" "${4:-$(mktemp -d)}"
