#!/usr/bin/env bash
# YSB-mem window latency (YSB-SPEC 7.2) in one script: AIR routing + hew-meld against KEY routing +
# low watermarks every 200 ms and every 10 ms, in-JVM and over peer JVMs (MPJ Express on loopback),
# each run in fresh JVMs.
#   benchmarks/ysb-latency.sh [RATES] [LAYOUTS] [windows]
#     RATES    offered events/s, comma-separated; "half" = half the combination's sustainable
#              throughput, measured first in throughput mode (default 200000,half)
#     LAYOUTS  PEERSxWORKERS, comma-separated (default 1x2,2x1,4x1)
#     windows  10 s windows per latency run, first and last excluded (default 13: YSB-SPEC 7.2 asks >= 12)
# Prints SUSTAINABLE and LATENCY lines, then one table. Called by ./air bench latency.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
RATES="${1:-200000,half}"
LAYOUTS="${2:-1x2,2x1,4x1}"
WINDOWS="${3:-13}"
TP_EVENTS="${AIR_TP_EVENTS:-200M}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench latency does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

ysb() { # ysb ARGS...: one run (the local launcher starts the peer JVMs when --peers > 1)
  "$JAVA" "${OPTS[@]}" -cp "$JAR" air.samples.ysb.YsbMain "$@" 2>"$TMP/err" | sed 's/^\[peer [0-9]*\] //' \
    || { tail -20 "$TMP/err" >&2; return 1; }
}

echo "# YSB-mem latency, rates=$RATES layouts=$LAYOUTS, $WINDOWS windows per run (first and last excluded), $(nproc) cores, opts='${OPTS[*]:-}'"
TABLE="$TMP/table"
for layout in ${LAYOUTS//,/ }; do
  peers="${layout%x*}"; workers="${layout#*x}"
  for combo in "AIR hewmeld 0" "KEY watermark 200" "KEY watermark 10"; do
    set -- $combo
    flags=(--peers "$peers" --routing "$1" --progress "$2" --watermark-ms "$3" --quiet --out "$TMP/out.csv")
    tp=""
    for rate in ${RATES//,/ }; do
      offered="$rate"
      if [ "$rate" = half ]; then
        if [ -z "$tp" ]; then
          tp=$(ysb "$TP_EVENTS" "$workers" "${flags[@]}" | sed -n 's/.*throughput_eps=\([0-9]*\).*/\1/p')
          echo "SUSTAINABLE layout=$layout routing=$1 progress=$2 watermark_ms=$3 throughput_eps=$tp"
        fi
        offered=$(( tp / 2 / 1000 * 1000 ))
      fi
      out=$(ysb $((WINDOWS * 10 * offered)) "$workers" --offered "$offered" "${flags[@]}")
      lat=$(echo "$out" | grep '^LATENCY')
      echo "$lat" | sed "s/^LATENCY/LATENCY layout=$layout routing=$1 progress=$2 watermark_ms=$3/"
      p50=$(echo "$lat" | sed -n 's/.*p50_ms=\([0-9.]*\).*/\1/p'); p99=$(echo "$lat" | sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p')
      mx=$(echo "$lat" | sed -n 's/.*max_ms=\([0-9.]*\).*/\1/p')
      printf '%-6s %-4s %-9s %5s %9s %10s %9s %9s %9s\n' "$layout" "$1" "$2" "$3" "$offered" "${tp:--}" "$p50" "$p99" "$mx" >>"$TABLE"
    done
  done
done
echo
printf '%-6s %-4s %-9s %5s %9s %10s %9s %9s %9s\n' layout route progress wm_ms offered sustain p50_ms p99_ms max_ms
cat "$TABLE"
