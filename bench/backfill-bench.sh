#!/usr/bin/env bash
# Backfill wall time against its floor in the same run (Jackson-parse the same lines + write as many rows to one
# plain Parquet file). JSON lines {"bench","metric","value","unit","params"} on stdout.
# Usage: bench/backfill-bench.sh [events=1000000] [keys=100000] [workDir=mktemp] ; BENCH_HEAP sets the backfill -Xmx.
# The seeded input (5% late, 2% duplicate, 1% delete, 5% no-change) is generated once per work dir and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q test-compile
mvn -B -q dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test >/dev/null
events="${1:-1000000}"; keys="${2:-100000}"; work="${3:-$(mktemp -d)}"
cp="target/classes:target/test-classes:$(cat target/bench.classpath)"
log="-Dlogback.configurationFile=src/test/resources/logback-test.xml"
input="$work/changes-$events-$keys.jsonl"
if [ ! -f "$input" ]; then
  java -Xmx${GEN_HEAP:-8g} $log -cp "$cp" io.dimstream.bench.BackfillFloorBench generate "$events" "$keys" "$input"
fi
rm -rf "$work/backfill" "$work/floor"
out=$(java -Xmx${BENCH_HEAP:-2g} $log -cp "$cp" io.dimstream.bench.BackfillFloorBench backfill "$input" "$work/backfill")
echo "$out"
rows=$(echo "$out" | sed -n 's/.*"versions":\([0-9]*\).*/\1/p' | head -1)
java -Xmx${BENCH_HEAP:-2g} $log -cp "$cp" io.dimstream.bench.BackfillFloorBench floor "$input" "$rows" "$work/floor"
