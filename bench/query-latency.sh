#!/usr/bin/env bash
# Query latencies over a Delta table of ~1M versions: point as-of, key history, full as-of scan.
# Usage: bench/query-latency.sh [versions (1000000)] [work dir (temp; a table there is reused)] [dimstream.targetFileRows (100000, the table default)] [lookups (50)]
# Not part of `mvn verify`. Needs the project compiled (mvn -o -q test-compile).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -o test-compile
CP="target/classes:target/test-classes:$(mvn -B -q -o dependency:build-classpath -Dmdep.outputFile=/dev/stdout)"
exec java -Xmx6g -cp "$CP" bench/QueryBench.java "$@"
