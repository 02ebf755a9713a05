#!/usr/bin/env bash
# YSB-mem on 2 peer JVMs x 1 worker (MPJ niodev, loopback) against 1 JVM x 2 workers, interleaved,
# fresh JVMs each run; prints medians and the ratio (target >= 0.85). Each peer JVM warms up its own
# JIT, so short runs understate the peers (400M: 0.79, 1G: 0.96 measured here).
#   benchmarks/ysb-peers.sh [N] [runs]      (via ./air bench peers)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${1:-1G}"; RUNS="${2:-3}"
run() { "$ROOT/air" ysb "$N" "$@" --quiet 2>&1 | grep -o 'throughput_eps=[0-9]*' | cut -d= -f2; }
one=(); two=()
for i in $(seq 1 "$RUNS"); do
  one+=("$(run 2)"); two+=("$(run 1 --peers 2)")
  echo "run $i: 1 peer x 2 workers ${one[-1]} ev/s, 2 peers x 1 worker ${two[-1]} ev/s" >&2
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
m1=$(median "${one[@]}"); m2=$(median "${two[@]}")
echo "PEERS n=$N runs=$RUNS one_peer_two_workers_eps=$m1 two_peers_one_worker_eps=$m2 ratio=$(awk -v a="$m2" -v b="$m1" 'BEGIN {printf "%.3f", a/b}')"
