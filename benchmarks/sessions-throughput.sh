#!/usr/bin/env bash
# Sessions (YSB-SPEC 11: YSB events counted per event-time session of their ad, gap 2 s, logical rate
# 1000) throughput: the plain loop (SessionsLoop, through air.benchmarks.YsbLoop --query sessions), the
# engine (./air sessions) at 1 and at 2 workers, side by side in fresh JVMs, every output checked
# (against YSB-SPEC 11's reference at 100K and 1M, else byte for byte against the loop's); see ysb-throughput.sh.
#   benchmarks/sessions-throughput.sh [N] [runs]     (defaults: 5M events, 3 runs each); ./air bench sessions
set -euo pipefail
AIR_QUERY=sessions exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/ysb-throughput.sh" "${1:-5M}" "${2:-3}"
