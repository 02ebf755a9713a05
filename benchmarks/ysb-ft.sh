#!/usr/bin/env bash
# What fault tolerance costs, in one script, each run in fresh JVMs:
#  1. YSB-mem throughput with no checkpoints, checkpoints every 1 s and every 5 s (interleaved rounds,
#     medians, ratio to none), in-JVM (1 JVM x 2 workers) and over 4 peer JVMs (4 x 1)
#  2. recovery: 4 peers, a peer kill -9ed K times (seeded), time from each kill to the restarted
#     peers' first result row (p50/p95 from the CHECK line, which also says lost=0 dup=0)
#  3. the large-state job (--query users: ~1M keys per window): checkpoint size and duration
#   benchmarks/ysb-ft.sh [N] [rounds] [kills]   (defaults 1G, 2, 10)
# Called by ./air bench ft, which sets JAVA_HOME and builds the jars.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/samples/target/air-samples.jar"
N="${1:-1G}"
ROUNDS="${2:-2}"
KILLS="${3:-10}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench ft does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

ysb() { # ysb LOG ARGS...: one run, its output (peer prefixes removed) kept in LOG
  local log="$1"; shift
  "$JAVA" "${OPTS[@]}" -cp "$JAR" air.samples.ysb.YsbMain "$@" >"$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
  sed -i 's/^\[peer [0-9]*\] //' "$log"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else if (NR%2) print a[(NR+1)/2]; else printf "%d\n", (a[NR/2]+a[NR/2+1])/2}'; }
eps() { sed -n 's/^RESULT.*throughput_eps=\([0-9]*\).*/\1/p' "$1"; }
ckpt_stats() { # ckpt_stats LOG: median bytes per peer file and median duration of the checkpoints in LOG
  local bytes ms
  bytes=$(sed -n 's/.*checkpoint [0-9]* written by peer [0-9]*: [0-9]* parts, \([0-9]*\) bytes.*/\1/p' "$1" | median)
  ms=$(sed -n 's/.*checkpoint [0-9]* written by peer [0-9]*: [0-9]* parts, [0-9]* bytes, \([0-9]*\) ms.*/\1/p' "$1" | median)
  echo "checkpoints=$(grep -c 'checkpoint [0-9]* written' "$1" || true) median_bytes_per_peer=$bytes median_ms=$ms"
}

echo "# fault tolerance: N=$N rounds=$ROUNDS kills=$KILLS, $(nproc) cores, opts='${OPTS[*]:-}'"
for layout in 1x2 4x1; do
  peers="${layout%x*}"; workers="${layout#*x}"
  : >"$TMP/none"; : >"$TMP/1s"; : >"$TMP/5s"
  for r in $(seq "$ROUNDS"); do
    for mode in none 1s 5s; do
      flags=(--peers "$peers" --quiet --out "$TMP/out.csv")
      [ "$mode" = none ] || { rm -rf "$TMP/ck"; flags+=(--checkpoints "$TMP/ck" --checkpoint-interval "$mode"); }
      ysb "$TMP/log" "$N" "$workers" "${flags[@]}"
      e=$(eps "$TMP/log"); echo "$e" >>"$TMP/$mode"
      echo "RUN layout=$layout checkpoints=$mode round=$r throughput_eps=$e $( [ "$mode" = none ] || ckpt_stats "$TMP/log")"
    done
  done
  none=$(median <"$TMP/none"); one=$(median <"$TMP/1s"); five=$(median <"$TMP/5s")
  echo "THROUGHPUT layout=$layout none=$none every_1s=$one every_5s=$five ratio_1s=$(awk "BEGIN{printf \"%.3f\", $one/$none}") ratio_5s=$(awk "BEGIN{printf \"%.3f\", $five/$none}")"
done

rm -rf "$TMP/ck"
ysb "$TMP/log" "$N" 1 --peers 4 --checkpoints "$TMP/ck" --checkpoint-interval 1s --kill "$KILLS" --kill-seed 1 --quiet --out "$TMP/out.csv"
echo "RECOVERY layout=4x1 $(grep '^CHECK' "$TMP/log")"

rm -rf "$TMP/ck"
ysb "$TMP/log" 20M 1 --peers 4 --query users --rate 1M --checkpoints "$TMP/ck" --checkpoint-interval 1s --quiet --out "$TMP/out.csv"
echo "LARGE_STATE layout=4x1 keys_per_window~1M $(ckpt_stats "$TMP/log") throughput_eps=$(eps "$TMP/log")"
