#!/usr/bin/env bash
# Nexmark-style queries over an application's batch (./air bench list, issue 31 item 1): N bids built in memory before
# the clock starts and handed to the job with Sources.fromList, at 1 and 2 workers (air.benchmarks.ListQueryScaling):
# q7 (the highest bid per 10 s tumbling window, unkeyed), count (bids per auction per 10 s window), q5 (bids per auction
# per 10 s window sliding by 2 s). Each query also runs over the same list split index by index, as fromList split it
# before (list-stride), as the baseline. Each run in a fresh JVM, runs interleaved, medians compared. Every run's
# output (its rows' digest) is checked against every other run of the same query: a run that differs says so (DIFFERS)
# and no ratio is given for that query.
#   benchmarks/list-scaling.sh [N] [runs] [queries]   (defaults: 100M bids, 3 runs each, "q7 count q5")
# Called by ./air bench list, which sets JAVA_HOME to a JDK >= 21 and builds the jar.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
N="${1:-100M}"
RUNS="${2:-3}"
QUERIES="${3:-q7 count q5}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench list does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
HEAP="${AIR_LIST_HEAP:-12g}" # 100M bids take about 5 GB, held before the clock starts
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "# list scaling, n=$N, $RUNS run(s) each, $(nproc) cores, $("$JAVA" -version 2>&1 | head -n1), heap $HEAP, opts='${OPTS[*]:-}'"
CHECKED=0; DIFFERED=0
for q in $QUERIES; do
  for r in $(seq 1 "$RUNS"); do
    for src in list-stride list; do
      for p in 1 2; do
        line=$("$JAVA" -Xms"$HEAP" -Xmx"$HEAP" "${OPTS[@]}" -cp "$JAR" air.benchmarks.ListQueryScaling "$N" "$p" "$q" "$src" 2>"$TMP/err" \
          | grep '^RESULT') || { tail -20 "$TMP/err" >&2; echo "run failed: $q $src p=$p" >&2; exit 1; }
        echo "$line"
        sha=$(echo "$line" | sed -n 's/.* sha256=\([0-9a-f]*\).*/\1/p')
        CHECKED=$((CHECKED + 1))
        if [ ! -e "$TMP/$q.sha" ]; then echo "$sha" > "$TMP/$q.sha"
        elif [ "$(cat "$TMP/$q.sha")" != "$sha" ]; then DIFFERED=$((DIFFERED + 1)); : > "$TMP/$q.differs"; echo "DIFFERS query=$q source=$src p=$p round=$r"; fi
        echo "$line" | sed -n 's/.*throughput_eps=\([0-9]*\).*/\1/p' >> "$TMP/$q-$src-$p"
      done
    done
  done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for q in $QUERIES; do
  if [ -e "$TMP/$q.differs" ]; then echo "RATIO query=$q n/a (outputs differ)"; continue; fi
  awk -v q="$q" -v s1="$(median "$TMP/$q-list-stride-1")" -v s2="$(median "$TMP/$q-list-stride-2")" \
      -v l1="$(median "$TMP/$q-list-1")" -v l2="$(median "$TMP/$q-list-2")" 'BEGIN {
    printf "MEDIAN query=%s stride_p1=%.0f stride_p2=%.0f list_p1=%.0f list_p2=%.0f\n", q, s1, s2, l1, l2
    printf "RATIO query=%s p2/p1 stride=%.3f list=%.3f (target: list p2/p1 >= 1.6)\n", q, s2 / s1, l2 / l1 }'
done
echo "OUTPUT checked=$CHECKED differed=$DIFFERED"
[ "$DIFFERED" = 0 ]
