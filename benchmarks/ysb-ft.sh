#!/usr/bin/env bash
# What fault tolerance costs, in one script, each run in fresh JVMs:
#  1. YSB-mem throughput with no checkpoints, checkpoints every 1 s and every 5 s (interleaved rounds,
#     medians, ratio to none), in-JVM (1 JVM x 2 workers) and over 4 peer JVMs (4 x 1); over 4 peers
#     also with replication (--replicas 1, copies every 1 s and 5 s, on AIR's TCP transport) and,
#     as its baseline, nothing on that same transport
#  2. rollback recovery: 4 peers, a peer kill -9ed K times (seeded), time from each kill to the
#     restarted peers' first result row (p50/p95 from the CHECK line, which also says lost=0 dup=0),
#     over MPJ niodev and over AIR's TCP transport
#  3. replica takeover: runs of 4 peers with 3 kills each (seeded, no restarts) until K kills,
#     time from each kill to the takeover and to the first new row of a taken-over sink
#  4. the large-state job (--query users: ~1M keys per window, AIR_FT_LARGE_N events, default 60M: six windows, so that
#     the first seconds of compiling and growing the heap do not decide it): throughput, checkpoint and replica size and
#     duration with whole snapshots every time and with incremental ones, each as a ratio to the same job without fault
#     tolerance on the same transport (checkpoints: MPJ niodev; replicas: AIR's TCP transport, which they need); every
#     JVM of this part gets a fixed, pre-touched heap (AIR_FT_HEAP, default 3g or less on a small machine: -Xms=-Xmx,
#     -XX:+AlwaysPreTouch; AIR_FT_HEAP=none leaves the JVM's default) since on a VM that faults fresh pages in slowly
#     the heap's growth costs more than the job (docs/benchmarks.md)
#   benchmarks/ysb-ft.sh [N] [rounds] [kills]   (defaults 1G, 2, 10); AIR_FT_PARTS="large" (say) runs only those parts
# Called by ./air bench ft, which sets JAVA_HOME and builds the jars. Every run's output is checked
# (ysb-check.sh): its CHECK line where it has one, the reference checksum where YSB-SPEC 6.3 has one
# for N, else byte for byte against the loop's output at the same N and options (the loop runs once
# per N, untimed); a run that differs says so (DIFFERS) and its figures go into no median, ratio or
# percentile.
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
BENCH_JAR="$ROOT/benchmarks/target/air-benchmarks.jar"; CHECK_DIR="$TMP"
source "$ROOT/benchmarks/ysb-check.sh"
LOOP_OPTS=()
EXTRA_OPTS=() # JVM flags of one part only (the large-state part's heap)

ysb() { # ysb RUN LOG N ARGS...: one run (with the variables in AIR_ENV), its output (peer prefixes removed) kept in LOG,
        # its canonical output in $TMP/out.csv; status 1 when that differs (from the loop's at N with LOOP_OPTS)
  local run="$1" log="$2" n="$3"; shift 3
  local rc=0
  set -f; local vars=(${AIR_ENV:-}); set +f
  rm -f "$TMP/out.csv"
  env "${vars[@]}" "$JAVA" "${OPTS[@]}" "${EXTRA_OPTS[@]}" -cp "$JAR" air.samples.ysb.YsbMain "$n" "$@" --out "$TMP/out.csv" >"$log" 2>&1 || rc=$?
  sed -i 's/^\[peer [0-9]*\] //' "$log"
  # exit 1 is a wrong result (vouch says which); anything else is a failed run
  if [ "$rc" -gt 1 ]; then run_failed "$run" "$log" "$rc"; fi
  vouch "$run" "$log" "$TMP/out.csv" "$n" "${LOOP_OPTS[@]}" || return 1
  [ "$rc" = 0 ] || run_failed "$run" "$log" "$rc"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else if (NR%2) print a[(NR+1)/2]; else printf "%d\n", (a[NR/2]+a[NR/2+1])/2}'; }
mode_median() { if [ -e "$TMP/$1.differs" ]; then echo n/a; else median <"$TMP/$1"; fi; } # n/a when a run of the mode differed
eps() { sed -n 's/^RESULT.*throughput_eps=\([0-9]*\).*/\1/p' "$1"; }
ckpt_stats() { # ckpt_stats LOG: median bytes per peer file and median duration of the checkpoints in LOG
  local bytes ms
  bytes=$(sed -n 's/.*checkpoint [0-9]* written by peer [0-9]*: [0-9]* parts, \([0-9]*\) bytes.*/\1/p' "$1" | median)
  ms=$(sed -n 's/.*checkpoint [0-9]* written by peer [0-9]*: [0-9]* parts, [0-9]* bytes, \([0-9]*\) ms.*/\1/p' "$1" | median)
  echo "checkpoints=$(grep -c 'checkpoint [0-9]* written' "$1" || true) median_bytes_per_peer=$bytes median_ms=$ms"
}

# AIR_FT_PARTS picks parts (default all): throughput recovery takeover large
want() { [[ " ${AIR_FT_PARTS:-throughput recovery takeover large} " == *" $1 "* ]]; }
echo "# fault tolerance: N=$N rounds=$ROUNDS kills=$KILLS, $(nproc) cores, opts='${OPTS[*]:-}'"
want throughput && for layout in 1x2 4x1; do
  peers="${layout%x*}"; workers="${layout#*x}"
  modes="none 1s 5s"
  [ "$peers" = 1 ] || modes="$modes tcp rep1s rep5s"
  for mode in $modes; do : >"$TMP/$mode"; rm -f "$TMP/$mode.differs"; done
  for r in $(seq "$ROUNDS"); do
    for mode in $modes; do
      flags=(--peers "$peers" --quiet)
      env=()
      case "$mode" in
        1s|5s) rm -rf "$TMP/ck"; flags+=(--checkpoints "$TMP/ck" --checkpoint-interval "$mode") ;;
        tcp) env=(AIR_TRANSPORT=tcp) ;;
        rep*) flags+=(--replicas 1 --checkpoint-interval "${mode#rep}") ;;
      esac
      if AIR_ENV="${env[*]:-}" ysb "layout=$layout mode=$mode round=$r" "$TMP/log" "$N" "$workers" "${flags[@]}"; then
        e=$(eps "$TMP/log"); echo "$e" >>"$TMP/$mode"
      else
        e=differs; : >"$TMP/$mode.differs"
      fi
      echo "RUN layout=$layout mode=$mode round=$r throughput_eps=$e $(case "$mode" in none|tcp) ;; *) ckpt_stats "$TMP/log" ;; esac)"
    done
  done
  none=$(mode_median none); one=$(mode_median 1s); five=$(mode_median 5s)
  ratio() { if [ "$1" = n/a ] || [ "$2" = n/a ]; then echo n/a; else awk "BEGIN{printf \"%.3f\", $1/$2}"; fi; }
  echo "THROUGHPUT layout=$layout none=$none every_1s=$one every_5s=$five ratio_1s=$(ratio "$one" "$none") ratio_5s=$(ratio "$five" "$none")"
  if [ "$peers" != 1 ]; then
    tcp=$(mode_median tcp); r1=$(mode_median rep1s); r5=$(mode_median rep5s)
    echo "REPLICATION layout=$layout none_mpj=$none none_tcp=$tcp replicas1_every_1s=$r1 replicas1_every_5s=$r5 ratio_1s_vs_tcp=$(ratio "$r1" "$tcp") ratio_5s_vs_tcp=$(ratio "$r5" "$tcp") ratio_1s_vs_mpj=$(ratio "$r1" "$none")"
  fi
done

want recovery && for transport in mpj tcp; do # AIR's TCP transport forms a world faster than MPJ niodev
  rm -rf "$TMP/ck"
  env=""; [ "$transport" = mpj ] || env=AIR_TRANSPORT=tcp
  if AIR_ENV="$env" ysb "recovery transport=$transport" "$TMP/log" "$N" 1 --peers 4 --checkpoints "$TMP/ck" --checkpoint-interval 1s --kill "$KILLS" --kill-seed 1 --quiet; then
    echo "RECOVERY layout=4x1 transport=$transport $(grep '^CHECK' "$TMP/log")"
  else
    echo "RECOVERY layout=4x1 transport=$transport n/a (the output differed)"
  fi
done

if want takeover; then
: >"$TMP/takeover"; : >"$TMP/first"
seed=1
while [ "$(wc -l <"$TMP/takeover")" -lt "$KILLS" ] && [ "$seed" -le "$KILLS" ]; do # each run adds 3 kills unless it differs
  if ! ysb "takeover seed=$seed" "$TMP/log" "$N" 1 --peers 4 --replicas 1 --checkpoint-interval 1s --kill 3 --kill-seed "$seed" --quiet; then
    seed=$((seed + 1)); continue
  fi
  echo "TAKEOVER_RUN seed=$seed $(grep '^CHECK' "$TMP/log")"
  sed -n 's/^\[launcher\] kill [0-9]*: takeover_ms=\([0-9-]*\) first_output_ms=\([0-9-]*\)/\1 \2/p' "$TMP/log" |
    while read -r t f; do echo "$t" >>"$TMP/takeover"; [ "$f" -lt 0 ] || echo "$f" >>"$TMP/first"; done
  seed=$((seed + 1))
done
echo "TAKEOVER layout=4x1 kills=$(wc -l <"$TMP/takeover") takeover_p50_ms=$(pct 0.5 <"$TMP/takeover") takeover_p95_ms=$(pct 0.95 <"$TMP/takeover") first_output_p50_ms=$(pct 0.5 <"$TMP/first") first_output_p95_ms=$(pct 0.95 <"$TMP/first")"
fi

if want large; then
LOOP_OPTS=(--rate 1M --query users)
LARGE_N="${AIR_FT_LARGE_N:-60M}"
heap="${AIR_FT_HEAP:-}"
if [ -z "$heap" ]; then # 3g per JVM (4 peers and the launcher), less where 60% of the memory does not hold five
  mem_mb=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
  per=$((mem_mb * 6 / 10 / 5)); [ "$per" -le 3072 ] || per=3072
  heap="${per}m"
fi
[ "$heap" = none ] || EXTRA_OPTS=("-Xms$heap" "-Xmx$heap" -XX:+AlwaysPreTouch)
echo "# large state: N=$LARGE_N heap=$heap"
# without fault tolerance on each transport, then checkpoints and replica copies every 1 s, each with whole state in every
# snapshot (--full-checkpoint-every 1, how AIR did it before incremental snapshots) and incremental (the default: whole every
# 8th); ROUNDS rounds, the modes interleaved within each round so that drift on a shared machine hits them alike; medians
# each mode:variant, the variant of none being its transport, of the others their snapshots
large_modes=(none:mpj none:tcp checkpoints:whole checkpoints:incremental replicas:whole replicas:incremental)
for ((r = 1; r <= ROUNDS; r++)); do
  for m in "${large_modes[@]}"; do
    mode=${m%%:*} variant=${m#*:}
    flags=()
    env=""
    rm -rf "$TMP/ck"
    if [ "$mode" = checkpoints ]; then flags=(--checkpoints "$TMP/ck"); elif [ "$mode" = replicas ]; then flags=(--replicas 1); fi
    if [ "$mode" != none ]; then
      flags+=(--checkpoint-interval 1s)
      [ "$variant" = incremental ] || flags+=(--full-checkpoint-every 1)
      what="snapshots=$variant"
    else
      [ "$variant" = mpj ] || env=AIR_TRANSPORT=tcp
      what="transport=$variant"
    fi
    key="large_${mode}_${variant}"
    if AIR_ENV="$env" ysb "large_state mode=$mode $what round=$r" "$TMP/log" "$LARGE_N" 1 --peers 4 --query users \
        --rate 1M "${flags[@]}" --quiet; then
      e=$(eps "$TMP/log"); echo "$e" >>"$TMP/$key"
      [ "$mode" = none ] || echo "$(ckpt_stats "$TMP/log")" >"$TMP/$key.stats"
    else
      e=differs; touch "$TMP/$key.differs"
    fi
    echo "RUN large_state mode=$mode $what round=$r throughput_eps=$e"
  done
done
mpj=$(mode_median large_none_mpj); tcp=$(mode_median large_none_tcp)
echo "LARGE_STATE layout=4x1 mode=none transport=mpj n=$LARGE_N rounds=$ROUNDS throughput_eps=$mpj"
echo "LARGE_STATE layout=4x1 mode=none transport=tcp n=$LARGE_N rounds=$ROUNDS throughput_eps=$tcp"
for m in "${large_modes[@]:2}"; do
  mode=${m%%:*} snapshots=${m#*:} key="large_${m%%:*}_${m#*:}"
  base=$mpj transport=mpj; [ "$mode" != replicas ] || base=$tcp transport=tcp
  e=$(mode_median "$key")
  r=n/a; [ "$e" = n/a ] || [ "$base" = n/a ] || r=$(awk "BEGIN{printf \"%.3f\", $e/$base}")
  echo "LARGE_STATE layout=4x1 mode=$mode snapshots=$snapshots transport=$transport n=$LARGE_N rounds=$ROUNDS keys_per_window~1M" \
    "$(cat "$TMP/$key.stats" 2>/dev/null) throughput_eps=$e ratio_vs_none_same_transport=$r"
done
EXTRA_OPTS=()
rm -rf "$TMP/ck"
fi
vouch_summary
