#!/usr/bin/env bash
# The API cost of a keyed process function (issue 14 item 7): YSB-mem counted per campaign and 10 s
# window three ways over the same generated events: the plain loop (air.benchmarks.YsbLoop), the engine
# with the built-in window(tumbling).aggregate(count()) and the engine with a keyed process function
# (MapState window -> count, an event-time timer per window; air.benchmarks.KeyedProcessCount), the
# engine runs at 1 and at 2 workers. Each run in a fresh JVM, runs interleaved, medians compared.
# Every run's output is checked (ysb-check.sh): against YSB-SPEC 6.3's reference where it has one for N
# (5M, 20M, 100M, 400M), else byte for byte against the loop's; a run that differs says so (DIFFERS)
# and gives no figures.
#   benchmarks/process-throughput.sh [N] [runs]     (defaults: 100M events, 3 runs each); ./air bench process
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
N="${1:-100M}"
RUNS="${2:-3}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench process does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
BENCH_JAR="$JAR"; CHECK_DIR="$TMP"
source "$ROOT/benchmarks/ysb-check.sh"

run() { # label, round, output file, main class, args...
  local label="$1" round="$2" out="$3"; shift 3
  local line rc=0
  "$JAVA" "${OPTS[@]}" -cp "$JAR" "$@" --out "$out" >"$TMP/log" 2>&1 || rc=$?
  if [ "$rc" -gt 1 ] || ! line=$(grep '^RESULT' "$TMP/log"); then run_failed "$label" "$TMP/log" "$rc"; fi
  echo "$line"
  [ "$label" != loop ] || remember_loop_output "$out" "$N"
  if vouch "run=$label round=$round" "$TMP/log" "$out" "$N"; then
    [ "$rc" = 0 ] || run_failed "$label" "$TMP/log" "$rc"
    echo "$line" | sed -n 's/.*throughput_eps=\([0-9.]*\).*/\1/p' >> "$TMP/$label"
  else
    : >"$TMP/$label.differs"
  fi
}

echo "# keyed process function vs window aggregate (YSB-mem counts), n=$N, $RUNS run(s) each, $(nproc) cores, $("$JAVA" -version 2>&1 | head -n1), opts='${OPTS[*]:-}'"
for r in $(seq 1 "$RUNS"); do
  run loop "$r" "$TMP/loop.csv" air.benchmarks.YsbLoop "$N"
  for p in 1 2; do
    run "window$p" "$r" "$TMP/window$p.csv" air.benchmarks.KeyedProcessCount "$N" "$p" --api window
    run "process$p" "$r" "$TMP/process$p.csv" air.benchmarks.KeyedProcessCount "$N" "$p" --api process
  done
done

median() { if [ -e "$TMP/$1.differs" ]; then echo n/a; else sort -n "$TMP/$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; fi; }
awk -v l="$(median loop)" -v w1="$(median window1)" -v p1="$(median process1)" -v w2="$(median window2)" -v p2="$(median process2)" '
  function eps(x) { return x == "n/a" ? x : sprintf("%.0f", x) }
  function ratio(x, y) { return x == "n/a" || y == "n/a" ? "n/a" : sprintf("%.3f", x / y) }
  BEGIN {
  printf "MEDIAN query=process loop_eps=%s window_p1_eps=%s process_p1_eps=%s window_p2_eps=%s process_p2_eps=%s\n", eps(l), eps(w1), eps(p1), eps(w2), eps(p2)
  printf "RATIO query=process process_p1/window_p1=%s process_p2/window_p2=%s window_p1/loop=%s process_p1/loop=%s process_p2/process_p1=%s\n", ratio(p1, w1), ratio(p2, w2), ratio(w1, l), ratio(p1, l), ratio(p2, p1)
}'
vouch_summary
