#!/usr/bin/env bash
# Table benchmark: JSON lines on stdout. Usage: bench/table-bench.sh [scale=1.0] [workDir] [phases]
# phases: comma-separated subset of codecs,tables,buckets,snapshot (default: all)
# scale 1.0 = tables of 1M and 10M rows and commits of 10k/100k/1M changed versions; 0.1 = a tenth.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o test-compile
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
exec java -Xmx${BENCH_HEAP:-8g} -Dlogback.configurationFile=src/test/resources/logback-test.xml \
  -cp "target/classes:target/test-classes:$(cat target/bench.classpath)" \
  io.dimstream.table.TableBench "${1:-1.0}" "${2:-$(mktemp -d)}" "${@:3}"
