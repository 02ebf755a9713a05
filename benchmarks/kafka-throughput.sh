#!/usr/bin/env bash
# YSB-mem from a Kafka topic (./air bench kafka): the engine reading the run's events from a topic
# (air-kafka's source, one partition per worker) against the engine with the in-memory generator,
# at P1 and P2, and kafka-clients alone reading the same topic in a loop (air.benchmarks.KafkaConsumerLoop:
# a consumer per worker, each decoding every event and counting views) as the ceiling for the Kafka
# runs. A local broker (Kafka's own, KRaft, loopback) is started first and removed at the end; the
# topics are produced once, untimed. Each run in a fresh JVM, runs interleaved, medians compared.
# Every engine run's output is checked (ysb-check.sh); the consumer loop checks its record and view
# counts against the generator itself (exit 1: DIFFERS).
#   benchmarks/kafka-throughput.sh [N] [runs]     (defaults: 20M events, 3 runs each)
# Called by ./air bench kafka, which sets JAVA_HOME to a JDK >= 21 and builds the jar.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/benchmarks/target/air-benchmarks.jar"
N="${1:-20M}"
RUNS="${2:-3}"
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK >= 21 (./air bench kafka does)}/bin/java"
set -f; OPTS=(${AIR_JIT_OPTS:-} ${AIR_JAVA_OPTS:-}); set +f
TMP="$(mktemp -d)"
BROKER_PID=""
cleanup() {
  exec 3>&- 2>/dev/null || true          # the broker's stdin ends: it stops and removes its files
  if [ -n "$BROKER_PID" ]; then wait "$BROKER_PID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
BENCH_JAR="$JAR"; CHECK_DIR="$TMP"
source "$ROOT/benchmarks/ysb-check.sh"

mkfifo "$TMP/broker.in"
"$JAVA" -cp "$JAR" air.benchmarks.LocalBroker <"$TMP/broker.in" >"$TMP/broker.out" 2>"$TMP/broker.log" &
BROKER_PID=$!
exec 3>"$TMP/broker.in"
for _ in $(seq 1 900); do
  grep -q '^BOOTSTRAP ' "$TMP/broker.out" && break
  kill -0 "$BROKER_PID" 2>/dev/null || { tail -30 "$TMP/broker.log" >&2; echo "the local Kafka broker did not start" >&2; exit 1; }
  sleep 0.1 # polling the broker's first line, with a 90 s deadline
done
BOOTSTRAP=$(sed -n 's/^BOOTSTRAP //p' "$TMP/broker.out")
[ -n "$BOOTSTRAP" ] || { echo "the local Kafka broker did not answer within 90 s" >&2; exit 1; }

declare -A TOPIC
for p in 1 2; do
  "$JAVA" -cp "$JAR" air.samples.kafka.YsbKafkaMain "$N" "$p" --partitions "$p" --bootstrap "$BOOTSTRAP" --produce-only \
    >"$TMP/produce.log" 2>&1 || { tail -30 "$TMP/produce.log" >&2; echo "producing the events failed" >&2; exit 1; }
  grep '^KAFKA' "$TMP/produce.log"
  TOPIC[$p]=$(sed -n 's/^KAFKA.* topic=\([^ ]*\).*/\1/p' "$TMP/produce.log")
done

run() { # label, round, output file, main class, args...
  local label="$1" round="$2" out="$3"; shift 3
  local line rc=0
  "$JAVA" "${OPTS[@]}" -cp "$JAR" "$@" --out "$out" >"$TMP/log" 2>&1 || rc=$?
  if [ "$rc" -gt 1 ] || ! line=$(grep '^RESULT' "$TMP/log"); then run_failed "$label" "$TMP/log" "$rc"; fi
  echo "$line"
  if vouch "run=$label round=$round" "$TMP/log" "$out" "$N"; then
    [ "$rc" = 0 ] || run_failed "$label" "$TMP/log" "$rc"
    echo "$line" | sed -n 's/.*throughput_eps=\([0-9.]*\).*/\1/p' >> "$TMP/$label"
    per_cpu "$line" >> "$TMP/$label.cpu"
  else
    : >"$TMP/$label.differs"
  fi
}

consume() { # label, round, P
  local label="$1" round="$2" p="$3" line rc=0
  "$JAVA" "${OPTS[@]}" -cp "$JAR" air.benchmarks.KafkaConsumerLoop "$BOOTSTRAP" "${TOPIC[$p]}" "$(count "$N")" "$p" >"$TMP/log" 2>&1 || rc=$?
  if [ "$rc" -gt 1 ] || ! line=$(grep '^RESULT' "$TMP/log"); then run_failed "$label" "$TMP/log" "$rc"; fi
  echo "$line"
  CHECKED=$((CHECKED + 1))
  if [ "$rc" = 0 ]; then
    echo "$line" | sed -n 's/.*throughput_eps=\([0-9.]*\).*/\1/p' >> "$TMP/$label"
    per_cpu "$line" >> "$TMP/$label.cpu"
  else
    DIFFERED=$((DIFFERED + 1)); echo "DIFFERS run=$label round=$round: $(grep MISMATCH "$TMP/log")"; : >"$TMP/$label.differs"
  fi
}

per_cpu() { # a RESULT line -> events per CPU-second of its JVM (n / cpu_s)
  echo "$1" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } printf "%.0f\n", v["n"] / v["cpu_s"] }'
}

count() { # 20M -> 20000000
  echo "$1" | awk '{ n=$1; m=1; s=toupper(substr(n, length(n))); if (s=="K") m=1e3; else if (s=="M") m=1e6; else if (s=="G") m=1e9;
    if (m>1) n=substr(n, 1, length(n)-1); printf "%d\n", n*m }'
}

echo "# ysb from kafka, n=$N, $RUNS run(s) each, $(nproc) cores, $("$JAVA" -version 2>&1 | head -n1), broker $BOOTSTRAP, opts='${OPTS[*]:-}'"
for r in $(seq 1 "$RUNS"); do
  for p in 1 2; do
    run mem$p "$r" "$TMP/mem$p.csv" air.samples.ysb.YsbMain "$N" "$p" --quiet
    run kafka$p "$r" "$TMP/kafka$p.csv" air.samples.ysb.YsbMain "$N" "$p" --quiet --kafka "$BOOTSTRAP" --topic "${TOPIC[$p]}"
    consume consumer$p "$r" "$p"
  done
done

median() { if [ -e "$TMP/${1%.cpu}.differs" ]; then echo n/a; else sort -n "$TMP/$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; fi; }
# events/s decide on this machine; events per CPU-second (each JVM's own CPU, the broker's not counted) say what
# a run would do with a core for each of its busy threads: at P2 on 2 cores the engine's fetch threads, its query
# and the broker share two cores, while the consumer loop only fetches and decodes.
for p in 1 2; do
  awk -v p="$p" -v m="$(median mem$p)" -v k="$(median kafka$p)" -v c="$(median consumer$p)" \
      -v kc="$(median kafka$p.cpu)" -v cc="$(median consumer$p.cpu)" '
    function eps(x) { return x == "n/a" ? x : sprintf("%.0f", x) }
    function ratio(x, y) { return x == "n/a" || y == "n/a" ? "n/a" : sprintf("%.3f", x / y) }
    BEGIN {
      printf "MEDIAN p=%d mem_eps=%s kafka_eps=%s consumer_eps=%s kafka_per_cpu_s=%s consumer_per_cpu_s=%s\n", p, eps(m), eps(k), eps(c),
        eps(kc), eps(cc)
      printf "RATIO p=%d kafka/consumer=%s kafka/mem=%s per_cpu_s kafka/consumer=%s (target: kafka/consumer >= 0.8)\n", p,
        ratio(k, c), ratio(k, m), ratio(kc, cc)
    }'
done
vouch_summary
