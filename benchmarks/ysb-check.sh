# Sourced by the YSB benchmark scripts: no engine run's figures count until its output is checked.
#  - where YSB-SPEC 6.3 (9 for YSBM, 10 for WA, 11 for sessions) has a reference checksum for the run's N, seed and R, the run says itself
#    whether its checksum matches (the samples print it, and exit 1 when not);
#  - otherwise its canonical output file must be byte-identical to the hand-written loop's
#    (air.benchmarks.YsbLoop, run once per N and options, untimed) at the same N and options;
#  - a CHECK line (runs with --kill) must say lost=0 dup=0.
# A run whose output differs gets a line "DIFFERS <run>: why"; the scripts put none of its figures
# into a median or a ratio, and end with exit status 1.
# Needs JAVA (a java binary), BENCH_JAR (a class path holding air.benchmarks.YsbLoop and air.launcher.Quantiles) and CHECK_DIR
# (a scratch folder the script removes).

CHECKED=0      # runs checked
DIFFERED=0     # runs whose output differed
BY_REFERENCE=0 # runs vouched for by the reference checksum
BY_LOOP=0      # runs vouched for by the loop's output

# loop_output N [OPTION VALUE...]: prints the path of the loop's canonical output at N with these
# options (--seed, --rate, --query), running the loop the first time.
loop_output() {
  local file="$CHECK_DIR/loop-$(printf '%s_' "$@" | tr -c 'A-Za-z0-9_' '_').csv"
  if [ ! -f "$file" ]; then
    if ! "$JAVA" -cp "$BENCH_JAR" air.benchmarks.YsbLoop "$@" --out "$file.tmp" >"$CHECK_DIR/loop.log" 2>&1; then
      cat "$CHECK_DIR/loop.log" >&2
      echo "the loop failed at n=$*: nothing to check the engine's output against" >&2
      rm -f "$file.tmp"
      return 1
    fi
    mv "$file.tmp" "$file"
  fi
  echo "$file"
}

# remember_loop_output FILE N [OPTION VALUE...]: FILE is the loop's output at N with these options
# (a timed loop run wrote it), so loop_output need not run the loop again.
remember_loop_output() {
  local file="$1"; shift
  local keep="$CHECK_DIR/loop-$(printf '%s_' "$@" | tr -c 'A-Za-z0-9_' '_').csv"
  [ -f "$keep" ] || cp "$file" "$keep"
}

# vouch RUN LOG OUT N [OPTION VALUE...]: 0 when the run RUN (words naming it, like "layout=4x1
# round=2"; LOG holds everything it printed, OUT is its canonical output file, and it ran at N with
# these output-changing options: --seed, --rate, --query) produced the right output; otherwise
# prints "DIFFERS RUN: why" and returns 1.
vouch() {
  local run="$1" log="$2" out="$3"; shift 3
  local plain="$CHECK_DIR/plain.log" why="" loop
  CHECKED=$((CHECKED + 1))
  sed 's/^\[peer [0-9]*\] //' "$log" >"$plain"
  if grep -qE '^ysb(-loop)?: ((ysbm|wa|sessions): )?(MISMATCH|users query: .*: MISMATCH$)' "$plain"; then
    why=$(grep -E '^ysb(-loop)?: .*MISMATCH' "$plain" | head -n 2 | paste -sd ';' -)
  elif grep -q '^CHECK ' "$plain" && ! grep -q '^CHECK lost=0 dup=0 ' "$plain"; then
    why="the checker says $(grep -m1 -o '^CHECK lost=[0-9]* dup=[0-9]*' "$plain" || grep -m1 '^CHECK' "$plain")"
  elif grep -qE '^ysb(-loop)?: ((ysbm|wa|sessions): )?checksum matches the reference' "$plain"; then
    BY_REFERENCE=$((BY_REFERENCE + 1))
    return 0
  elif [ ! -f "$out" ]; then
    why="it wrote no output file $out"
  elif ! loop=$(loop_output "$@"); then
    why="the loop failed, so its output could not be checked"
  elif cmp -s "$out" "$loop"; then
    BY_LOOP=$((BY_LOOP + 1))
    return 0
  else
    why="its output differs from the loop's at n=$*: sha256 $(sha256sum <"$out" | cut -c1-64) against $(sha256sum <"$loop" | cut -c1-64), $(first_difference "$out" "$loop")"
  fi
  DIFFERED=$((DIFFERED + 1))
  echo "DIFFERS $run: $why"
  return 1
}

# run_failed RUN LOG STATUS: a run that failed otherwise than with wrong output: its log's tail, and the
# script stops (a run whose output is right but exits non-zero has failed too).
run_failed() {
  tail -30 "$2" >&2
  echo "run $1 failed (exit $3)" >&2
  exit 1
}

# first_difference RUN_OUT LOOP_OUT: where the run's output first differs from the loop's, in words.
first_difference() {
  local first
  first=$(cmp "$1" "$2" 2>&1 | head -n 1) || true
  case "$first" in
    *"EOF on $1"*) echo "the run's output stops early${first##*"EOF on $1"}" ;;
    *"EOF on $2"*) echo "the run's output goes on past the loop's end${first##*"EOF on $2"}" ;;
    *" differ: "*) echo "first at ${first##*differ: }" ;;
    *) echo "$first" ;;
  esac
}

# vouch_summary: the line that says how every run was checked; status 1 when one differed.
vouch_summary() {
  echo "OUTPUT checked=$CHECKED differed=$DIFFERED matched_reference=$BY_REFERENCE matched_loop=$BY_LOOP$([ "$DIFFERED" = 0 ] || echo " (runs that differed have no figures above)")"
  [ "$DIFFERED" = 0 ]
}

# pct P: the nearest-rank P quantile (0 <= P <= 1) of the whole numbers on stdin, one a line, n/a for none: an
# HdrHistogram's (air.launcher.Quantiles, in the benchmarks jar), as the CHECK lines' and LATENCY lines' percentiles are.
pct() { "$JAVA" -cp "$BENCH_JAR" air.launcher.Quantiles "$1"; }
