#!/usr/bin/env bash
# End-to-end benchmark: embedded broker + the service (as `dimstream run` wires it) in one JVM, a generated change
# stream sent to the changes topic; JSON lines on stdout (log lines, warnings only, start with a time).
# Usage: bench/e2e-bench.sh [events=200000] [keys=20000] [workDir=mktemp] [partitions=1] [compactionIntervalMs=1000]
#        [producePerSecond=0: as fast as possible; set it below the throughput to measure latency without a backlog]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o test-compile
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
work="${3:-$(mktemp -d)}"
exec java -Xmx${BENCH_HEAP:-4g} -Dlogback.configurationFile=src/test/resources/logback-test.xml \
  -Ddimstream.log.level=WARN \
  -cp "target/classes:target/test-classes:$(cat target/bench.classpath)" \
  io.dimstream.bench.E2EBench "${1:-200000}" "${2:-20000}" "$work" "${4:-1}" "${5:-1000}" "${6:-0}"
