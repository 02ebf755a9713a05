#!/usr/bin/env bash
# YSB-mem throughput: a plain single-threaded loop, the engine at 1 worker and at 2 workers.
# Each run in a fresh JVM (YSB-SPEC 7.1), runs interleaved, medians compared.
#   benchmarks/ysb-throughput.sh [N] [runs]     (defaults: 1G events, 3 runs each)
# Called by ./air bench ysb, which sets JAVA_HOME to a JDK >= 21 and builds the jar.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
N="${1:-1G}"
RUNS="${2:-3}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench ysb does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

run() { # label, main class, args...
  local label="$1"; shift
  local line
  line=$("$JAVA" "${OPTS[@]}" -cp "$JAR" "$@" 2>"$TMP/err" | grep '^RESULT') || { cat "$TMP/err" >&2; echo "benchmark run '$label' failed" >&2; exit 1; }
  echo "$line"
  echo "$line" | sed -n 's/.*throughput_eps=\([0-9.]*\).*/\1/p' >> "$TMP/$label"
}

echo "# YSB-mem throughput, n=$N, $RUNS run(s) each, $(nproc) cores, $("$JAVA" -version 2>&1 | head -n1), opts='${OPTS[*]:-}'"
for r in $(seq 1 "$RUNS"); do
  run loop air.benchmarks.YsbLoop "$N"
  run engine1 air.samples.ysb.YsbMain "$N" 1 --quiet --out "$TMP/out1.csv"
  run engine2 air.samples.ysb.YsbMain "$N" 2 --quiet --out "$TMP/out2.csv"
done

median() { sort -n "$TMP/$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
loop=$(median loop); e1=$(median engine1); e2=$(median engine2)
awk -v l="$loop" -v a="$e1" -v b="$e2" 'BEGIN {
  printf "MEDIAN loop_eps=%.0f engine_p1_eps=%.0f engine_p2_eps=%.0f\n", l, a, b
  printf "RATIO engine_p1/loop=%.3f engine_p2/loop=%.3f engine_p2/engine_p1=%.3f (targets: >= 0.6 and >= 1.6)\n", a/l, b/l, b/a
}'
