#!/usr/bin/env bash
# YSBM (YSB-SPEC 9: click and view branches of one source, window-joined) throughput: the loop,
# the engine at 1 and at 2 workers, side by side in fresh JVMs, every output checked; see ysb-throughput.sh.
#   benchmarks/ysbm-throughput.sh [N] [runs]     (defaults: 1G events, 3 runs each); ./air bench ysbm
set -euo pipefail
AIR_QUERY=ysbm exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ysb-throughput.sh" "$@"
