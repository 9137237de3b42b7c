#!/usr/bin/env bash
# The AsyncHTTPClient adapter's benchmark: peak memory and throughput of 1 GiB bodies (JSON Lines decoded row by
# row, Server-Sent Events, a download to disk) through AsyncHTTPClientTransport and through raw AsyncHTTPClient
# doing the same work, interleaved, each run in a process of its own.
#   scripts/benchmark-ahc.sh [MEBIBYTES] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
mebibytes=${1:-1024}
rounds=${2:-2}
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-bench.XXXXXX")
trap 'scripts/test-servers.sh stop "$state" || true; rm -rf "$state"' EXIT
scripts/test-servers.sh start "$state"
# shellcheck disable=SC1091
source "$state/env"
adapter=Adapters/AsyncHTTPClient
swift build --package-path "$adapter" -c release --product EndpointKitAsyncHTTPClientBenchmarks
bin=$(swift build --package-path "$adapter" -c release --show-bin-path)/EndpointKitAsyncHTTPClientBenchmarks
"$bin" prepare "$ENDPOINTKIT_NGINX_URL" "$mebibytes" >"$state/cases"
echo "AsyncHTTPClientTransport against raw AsyncHTTPClient, $mebibytes MiB per case, $rounds rounds, interleaved"
for round in $(seq "$rounds"); do
    # Alternate which side goes first.
    sides="endpointkit raw urlsession"
    if [ $((round % 2)) -eq 0 ]; then sides="raw endpointkit urlsession"; fi
    while read -r name path count; do
        for side in $sides; do
            echo "  round $round $("$bin" run "$name" "$side" "$ENDPOINTKIT_NGINX_URL" "$path" "$count")"
        done
    done <"$state/cases"
done
