#!/usr/bin/env bash
# EndpointKit against raw URLSession, each side in a process of its own, interleaved in rotating order:
# the per-pair ratios of wall time and of CPU time (user + system, from the OS) for the same fixed workload.
#   scripts/compare-processes.sh BENCHMARK_BINARY NGINX_URL [PAIRS] [REQUESTS] [FILE]
set -euo pipefail
bin=${1:?binary}
url=${2:?nginx url}
pairs=${3:-10}
requests=${4:-2000}
export EK_FILE=${5:-user-1k.json}
measure() {
    # wall seconds and CPU seconds of one process
    local start end cpu
    start=$(date +%s.%N)
    cpu=$( { /usr/bin/env time -f '%U %S' "$bin" profile "$1" "$url" "$requests" >/dev/null; } 2>&1 | tail -1 )
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc -l) $(echo "$cpu" | awk '{print $1 + $2}')"
}
results=()
for pair in $(seq 1 "$pairs"); do
    if [ $((pair % 2)) -eq 0 ]; then order="raw kit floor"; else order="kit floor raw"; fi
    declare -A run=()
    for side in $order; do run[$side]=$(measure "$side"); done
    results+=("${run[raw]} ${run[kit]} ${run[floor]}")
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [list(map(float, line.split())) for line in sys.stdin if line.strip()]
def show(name, index):
    wall = [r[index * 2] / r[0] for r in rows]
    cpu = [r[index * 2 + 1] / r[1] for r in rows]
    print(f"    {name}: wall {statistics.median(wall):.3f} [{min(wall):.3f}-{max(wall):.3f}]"
          f"   cpu {statistics.median(cpu):.3f} [{min(cpu):.3f}-{max(cpu):.3f}]")
print(f"  separate processes, {len(rows)} rotations")
show("EndpointKit / raw              ", 1)
show("delegate-collecting floor / raw", 2)
'
