#!/usr/bin/env bash
# The CPU an open stream costs while it waits, through each transport: a JSON Lines stream whose server sends one
# small line a second, read to its end, each run in a process of its own, the two transports interleaved.
#   scripts/benchmark-idle-stream.sh [LINES] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-10}
rounds=${2:-3}
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-bench.XXXXXX")
trap 'scripts/test-servers.sh stop "$state" || true; rm -rf "$state"' EXIT
scripts/test-servers.sh start "$state"
# shellcheck disable=SC1091
source "$state/env"
swift build --enable-all-traits -c release --product EndpointKitAsyncHTTPClientBenchmarks
bin=$(swift build --enable-all-traits -c release --show-bin-path)/EndpointKitAsyncHTTPClientBenchmarks
echo "An idle stream ($lines lines, one a second), $rounds rounds, interleaved"
for round in $(seq "$rounds"); do
    if [ $((round % 2)) = 1 ]; then sides="urlsession asynchttpclient"; else sides="asynchttpclient urlsession"; fi
    for side in $sides; do
        echo "  round $round $("$bin" idle-stream "$side" "$ENDPOINTKIT_FAULT_URL" "$lines")"
    done
done
