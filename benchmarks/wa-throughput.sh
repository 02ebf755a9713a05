#!/usr/bin/env bash
# WA (YSB-SPEC 10: every event counted per window, unkeyed) throughput: the loop,
# the engine at 1 and at 2 workers, side by side in fresh JVMs, every output checked; see ysb-throughput.sh.
#   benchmarks/wa-throughput.sh [N] [runs]     (defaults: 1G events, 3 runs each); ./air bench wa
set -euo pipefail
AIR_QUERY=wa exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ysb-throughput.sh" "$@"
