#!/usr/bin/env bash
# YSB-mem window latency (YSB-SPEC 7.2) in one script: AIR routing + hew-meld against KEY routing +
# low watermarks every 200 ms and every 10 ms, in-JVM and over peer JVMs (MPJ Express on loopback),
# each run in fresh JVMs.
#   benchmarks/ysb-latency.sh [RATES] [LAYOUTS] [windows]
#     RATES    offered events/s, comma-separated; "half" = half the combination's sustainable
#              throughput, measured first in throughput mode (default 200000,half)
#     LAYOUTS  PEERSxWORKERS, comma-separated (default 1x2,2x1,4x1)
#     windows  10 s windows per latency run, first and last excluded (default 13: YSB-SPEC 7.2 asks >= 12)
# AIR_QUERY=ysbm (or wa) measures that query instead of YSB-mem, e.g. YSBM at 200 000 events/s:
#   AIR_QUERY=ysbm ./air bench latency 200000 1x2
# Prints SUSTAINABLE and LATENCY lines, then one table. Called by ./air bench latency. Every run's
# output is checked (ysb-check.sh) against the loop's output at the same N and rate (YSB-SPEC 6.3 has
# no reference for these); a run that differs says so (DIFFERS) and its figures are not reported.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
RATES="${1:-200000,half}"
LAYOUTS="${2:-1x2,2x1,4x1}"
WINDOWS="${3:-13}"
TP_EVENTS="${AIR_TP_EVENTS:-200M}"
QUERY="${AIR_QUERY:-ysb}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench latency does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

BENCH_JAR="$JAR"; CHECK_DIR="$TMP"
source "$ROOT/benchmarks/ysb-check.sh"

ysb() { # ysb RUN N ARGS...: one run (the local launcher starts the peer JVMs when --peers > 1), all it
        # printed in $TMP/log; status 1 when its output differs from the loop's at N with LOOP_OPTS
  local run="$1" n="$2"; shift 2
  local rc=0
  "$JAVA" "${OPTS[@]}" -cp "$JAR" air.samples.ysb.YsbMain "$n" "$@" --query "$QUERY" --out "$TMP/out.csv" >"$TMP/log" 2>&1 || rc=$?
  sed -i 's/^\[peer [0-9]*\] //' "$TMP/log"
  if [ "$rc" -gt 1 ]; then run_failed "$run" "$TMP/log" "$rc"; fi
  vouch "$run" "$TMP/log" "$TMP/out.csv" "$n" "${LOOP_OPTS[@]}" --query "$QUERY" || return 1
  [ "$rc" = 0 ] || run_failed "$run" "$TMP/log" "$rc"
}

echo "# $QUERY latency, rates=$RATES layouts=$LAYOUTS, $WINDOWS windows per run (first and last excluded), $(nproc) cores, opts='${OPTS[*]:-}'"
TABLE="$TMP/table"
for layout in ${LAYOUTS//,/ }; do
  peers="${layout%x*}"; workers="${layout#*x}"
  for combo in "AIR hewmeld 0" "KEY watermark 200" "KEY watermark 10"; do
    set -- $combo
    flags=(--peers "$peers" --routing "$1" --progress "$2" --watermark-ms "$3" --quiet)
    names="layout=$layout routing=$1 progress=$2 watermark_ms=$3"
    tp=""
    for rate in ${RATES//,/ }; do
      offered="$rate"
      if [ "$rate" = half ]; then
        if [ -z "$tp" ]; then
          LOOP_OPTS=()
          if ysb "$names mode=throughput" "$TP_EVENTS" "$workers" "${flags[@]}"; then
            tp=$(sed -n 's/^RESULT.*throughput_eps=\([0-9]*\).*/\1/p' "$TMP/log")
            echo "SUSTAINABLE $names throughput_eps=$tp"
          else
            tp=differs
          fi
        fi
        if [ "$tp" = differs ]; then
          printf '%-6s %-4s %-9s %5s %9s %10s %9s %9s %9s\n' "$layout" "$1" "$2" "$3" half differs - - - >>"$TABLE"
          continue
        fi
        offered=$(( tp / 2 / 1000 * 1000 ))
      fi
      LOOP_OPTS=(--rate "$offered")
      if ysb "$names offered=$offered" $((WINDOWS * 10 * offered)) "$workers" --offered "$offered" "${flags[@]}"; then
        lat=$(grep '^LATENCY' "$TMP/log")
        echo "$lat" | sed "s/^LATENCY/LATENCY $names/"
        p50=$(echo "$lat" | sed -n 's/.*p50_ms=\([0-9.]*\).*/\1/p'); p99=$(echo "$lat" | sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p')
        mx=$(echo "$lat" | sed -n 's/.*max_ms=\([0-9.]*\).*/\1/p')
      else
        p50=differs; p99=differs; mx=differs
      fi
      printf '%-6s %-4s %-9s %5s %9s %10s %9s %9s %9s\n' "$layout" "$1" "$2" "$3" "$offered" "${tp:--}" "$p50" "$p99" "$mx" >>"$TABLE"
    done
  done
done
echo
printf '%-6s %-4s %-9s %5s %9s %10s %9s %9s %9s\n' layout route progress wm_ms offered sustain p50_ms p99_ms max_ms
cat "$TABLE"
vouch_summary
