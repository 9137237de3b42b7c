#!/usr/bin/env bash
# The AsyncHTTPClient adapter's benchmark: the speed of 1 KB calls through AsyncHTTPClientTransport against raw
# AsyncHTTPClient (interleaved ratios, then instructions per call by callgrind), and peak memory and throughput
# of 1 GiB bodies (JSON Lines decoded row by row, Server-Sent Events, a download to disk) through both, each run
# in a process of its own.
#   scripts/benchmark-ahc.sh [MEBIBYTES] [ROUNDS] [CASE...]     CASE: json-lines, events, download (all unless named)
set -euo pipefail
cd "$(dirname "$0")/.."
mebibytes=${1:-1024}
rounds=${2:-2}
shift $(($# < 2 ? $# : 2))
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-bench.XXXXXX")
trap 'scripts/test-servers.sh stop "$state" || true; rm -rf "$state"' EXIT
scripts/test-servers.sh start "$state"
# shellcheck disable=SC1091
source "$state/env"
swift build --enable-all-traits -c release --product EndpointKitAsyncHTTPClientBenchmarks
bin=$(swift build --enable-all-traits -c release --show-bin-path)/EndpointKitAsyncHTTPClientBenchmarks
"$bin" compare "$ENDPOINTKIT_NGINX_URL" "${PAIRS:-12}"
"$bin" prepare "$ENDPOINTKIT_NGINX_URL" "$mebibytes" "$@" >"$state/cases"
echo "AsyncHTTPClientTransport against raw AsyncHTTPClient, $mebibytes MiB per case, $rounds rounds, interleaved"
for round in $(seq "$rounds"); do
    # Rotate which side goes first: the first large write of a round pays for the page cache.
    case $((round % 3)) in
        1) sides="endpointkit raw urlsession" ;;
        2) sides="raw urlsession endpointkit" ;;
        *) sides="urlsession endpointkit raw" ;;
    esac
    while read -r name path count; do
        for side in $sides; do
            echo "  round $round $("$bin" run "$name" "$side" "$ENDPOINTKIT_NGINX_URL" "$path" "$count")"
        done
    done <"$state/cases"
done
scripts/benchmark-instructions.sh ahc 20 120 | tail -n 12
