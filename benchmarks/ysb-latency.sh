#!/usr/bin/env bash
# YSB-mem window latency (YSB-SPEC 7.2) in one script, in-JVM: AIR routing + hew-meld against
# KEY routing + low watermarks every 200 ms and every 10 ms, each in a fresh JVM.
#   benchmarks/ysb-latency.sh [L events/s|half] [P workers] [windows]   (defaults: 200000, 2, 13)
# L=half first measures each combination's sustainable throughput (throughput mode, 200M events)
# and then offers half of it.
# Called by ./air bench latency, which sets JAVA_HOME and builds the jar.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
L="${1:-200000}"
P="${2:-2}"
WINDOWS="${3:-13}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench latency does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

echo "# YSB-mem latency, offered=$L events/s, p=$P, $WINDOWS windows (first and last excluded), $(nproc) cores, opts='${OPTS[*]:-}'"
for combo in "AIR hewmeld 0" "KEY watermark 200" "KEY watermark 10"; do
  set -- $combo
  flags=(--routing "$1" --progress "$2" --watermark-ms "$3" --quiet --out "$TMP/out.csv")
  offered="$L"
  if [ "$L" = half ]; then
    tp=$("$JAVA" "${OPTS[@]}" -cp "$JAR" air.samples.ysb.YsbMain 200M "$P" "${flags[@]}" 2>"$TMP/err" \
         | sed -n 's/.*throughput_eps=\([0-9]*\).*/\1/p') || { cat "$TMP/err" >&2; exit 1; }
    offered=$(( tp / 2 / 1000 * 1000 ))
    echo "SUSTAINABLE routing=$1 progress=$2 watermark_ms=$3 p=$P throughput_eps=$tp offered_half=$offered"
  fi
  n=$((WINDOWS * 10 * offered))
  out=$("$JAVA" "${OPTS[@]}" -cp "$JAR" air.samples.ysb.YsbMain "$n" "$P" --offered "$offered" "${flags[@]}" 2>"$TMP/err") \
    || { cat "$TMP/err" >&2; exit 1; }
  echo "$out" | grep '^RESULT' | sed 's/ jvm_flags=.*//'
  echo "$out" | grep '^LATENCY' | sed "s/^LATENCY/LATENCY routing=$1 progress=$2 watermark_ms=$3/"
done
