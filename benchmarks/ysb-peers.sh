#!/usr/bin/env bash
# YSB-mem on 2 peer JVMs x 1 worker (MPJ niodev, loopback) against 1 JVM x 2 workers, interleaved,
# fresh JVMs each run; prints medians and the ratio (target >= 0.85). Each peer JVM warms up its own
# JIT, so short runs understate the peers (400M: 0.79, 1G: 0.96 measured here). Every run's output
# is checked (ysb-check.sh): against the reference checksum where YSB-SPEC 6.3 has one for N, else
# byte for byte against the loop's output at N (the loop runs once, untimed); a run that differs
# says so (DIFFERS) and no median or ratio is given for its configuration.
#   benchmarks/ysb-peers.sh [N] [runs]      (via ./air bench peers)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-1G}"; RUNS="${2:-3}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench peers does)}/bin/java"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
BENCH_JAR="$ROOT/benchmarks/target/air-benchmarks.jar"; CHECK_DIR="$TMP"
source "$ROOT/benchmarks/ysb-check.sh"

run() { # run LABEL ROUND ARGS...: one run; its throughput in EPS, "differs" when its output differs
  local label="$1" round="$2"; shift 2
  local rc=0
  "$ROOT/air" ysb "$N" "$@" --quiet --out "$TMP/out.csv" >"$TMP/log" 2>&1 || rc=$?
  # exit 1 is a wrong result (checked below); anything else is a failed run
  if [ "$rc" -gt 1 ] || ! grep -q 'throughput_eps=' "$TMP/log"; then run_failed "$label" "$TMP/log" "$rc"; fi
  if vouch "$label round=$round" "$TMP/log" "$TMP/out.csv" "$N"; then
    [ "$rc" = 0 ] || run_failed "$label" "$TMP/log" "$rc"
    EPS=$(grep -o 'throughput_eps=[0-9]*' "$TMP/log" | cut -d= -f2)
    echo "$EPS" >>"$TMP/$label"
  else
    EPS=differs; : >"$TMP/$label.differs"
  fi
}
for i in $(seq 1 "$RUNS"); do
  run layout=1x2 "$i" 2; e1="$EPS"
  run layout=2x1 "$i" 1 --peers 2; e2="$EPS"
  echo "run $i: 1 peer x 2 workers $e1 ev/s, 2 peers x 1 worker $e2 ev/s" >&2
done
# the median of a configuration none of whose runs differed, else n/a
median() { if [ -e "$TMP/$1.differs" ]; then echo n/a; else sort -n "$TMP/$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; fi; }
m1=$(median layout=1x2); m2=$(median layout=2x1); ratio=n/a
[ "$m1" = n/a ] || [ "$m2" = n/a ] || ratio=$(awk -v a="$m2" -v b="$m1" 'BEGIN {printf "%.3f", a/b}')
echo "PEERS n=$N runs=$RUNS one_peer_two_workers_eps=$m1 two_peers_one_worker_eps=$m2 ratio=$ratio"
vouch_summary
