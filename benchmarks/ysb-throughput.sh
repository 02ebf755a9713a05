#!/usr/bin/env bash
# Throughput of a query over the YSB events (YSB-mem by default; AIR_QUERY=ysbm, wa or sessions, which
# benchmarks/ysbm-throughput.sh, wa-throughput.sh and sessions-throughput.sh set): a plain single-threaded
# loop over the same generator (for YSBM one pass counting both types, for WA one counter, for sessions
# SessionsLoop's open session per ad), the engine at 1 worker and
# at 2 workers. AIR_BENCH_ARGS adds engine options (routing, progress) to the engine runs.
# Each run in a fresh JVM (YSB-SPEC 7.1), runs interleaved, medians compared. Every run's output is
# checked (ysb-check.sh): against the reference checksum where YSB-SPEC 6.3 has one for N, else byte
# for byte against the loop's output at N; a run that differs says so (DIFFERS) and no median or
# ratio is given for its configuration.
#   benchmarks/ysb-throughput.sh [N] [runs]     (defaults: 1G events, 3 runs each)
# Called by ./air bench ysb, which sets JAVA_HOME to a JDK >= 21 and builds the jar.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
N="${1:-1G}"
RUNS="${2:-3}"
QUERY="${AIR_QUERY:-ysb}"
set -f; ENGINE_ARGS=(${AIR_BENCH_ARGS:-}); set +f   # e.g. AIR_BENCH_ARGS="--routing AIR --progress hewmeld"
case "$QUERY" in
  ysb) TARGETS=">= 0.6 and >= 1.6" ;;
  ysbm|wa) TARGETS="P1/loop >= 0.8, P2/P1 >= 1.7" ;;
  sessions) TARGETS="none set: reported (issue 14 item 7)" ;;
  *) echo "AIR_QUERY must be ysb, ysbm, wa or sessions, was '$QUERY'" >&2; exit 2 ;;
esac
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench ysb does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
BENCH_JAR="$JAR"; CHECK_DIR="$TMP"
source "$ROOT/benchmarks/ysb-check.sh"

run() { # label, round, output file, main class, args...
  local label="$1" round="$2" out="$3"; shift 3
  local line rc=0
  "$JAVA" "${OPTS[@]}" -cp "$JAR" "$@" --out "$out" >"$TMP/log" 2>&1 || rc=$?
  # exit 1 is a wrong result (vouch says which); anything else is a failed run
  if [ "$rc" -gt 1 ] || ! line=$(grep '^RESULT' "$TMP/log"); then run_failed "$label" "$TMP/log" "$rc"; fi
  echo "$line"
  [ "$label" != loop ] || remember_loop_output "$out" "$N" --query "$QUERY"
  if vouch "run=$label round=$round" "$TMP/log" "$out" "$N" --query "$QUERY"; then
    [ "$rc" = 0 ] || run_failed "$label" "$TMP/log" "$rc"
    echo "$line" | sed -n 's/.*throughput_eps=\([0-9.]*\).*/\1/p' >> "$TMP/$label"
  else
    : >"$TMP/$label.differs"
  fi
}

echo "# $QUERY throughput ${ENGINE_ARGS[*]:-}, n=$N, $RUNS run(s) each, $(nproc) cores, $("$JAVA" -version 2>&1 | head -n1), opts='${OPTS[*]:-}'"
for r in $(seq 1 "$RUNS"); do
  run loop "$r" "$TMP/loop.csv" air.benchmarks.YsbLoop "$N" --query "$QUERY"
  run engine1 "$r" "$TMP/out1.csv" air.samples.ysb.YsbMain "$N" 1 --quiet --query "$QUERY" "${ENGINE_ARGS[@]}"
  run engine2 "$r" "$TMP/out2.csv" air.samples.ysb.YsbMain "$N" 2 --quiet --query "$QUERY" "${ENGINE_ARGS[@]}"
done

# the median of a configuration none of whose runs differed, else n/a
median() { if [ -e "$TMP/$1.differs" ]; then echo n/a; else sort -n "$TMP/$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; fi; }
loop=$(median loop); e1=$(median engine1); e2=$(median engine2)
awk -v l="$loop" -v a="$e1" -v b="$e2" -v t="$TARGETS" -v q="$QUERY" '
  function eps(x) { return x == "n/a" ? x : sprintf("%.0f", x) }
  function ratio(x, y) { return x == "n/a" || y == "n/a" ? "n/a" : sprintf("%.3f", x / y) }
  BEGIN {
  printf "MEDIAN query=%s loop_eps=%s engine_p1_eps=%s engine_p2_eps=%s\n", q, eps(l), eps(a), eps(b)
  printf "RATIO query=%s engine_p1/loop=%s engine_p2/loop=%s engine_p2/engine_p1=%s (targets: %s)\n", q, ratio(a, l), ratio(b, l), ratio(b, a), t
}'
vouch_summary
