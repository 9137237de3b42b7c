#!/usr/bin/env bash
# Runs the benchmarks in release mode against the loopback servers and prints their numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-bench.XXXXXX")
trap 'scripts/test-servers.sh stop "$state" || true; rm -rf "$state"' EXIT
scripts/test-servers.sh start "$state"
# shellcheck disable=SC1091
source "$state/env"
swift build -c release --product EndpointKitBenchmarks
bin=$(swift build -c release --show-bin-path)/EndpointKitBenchmarks
"$bin" compare "$ENDPOINTKIT_NGINX_URL" "${PAIRS:-10}"
scripts/compare-processes.sh "$bin" "$ENDPOINTKIT_NGINX_URL" "${PAIRS:-10}" 2000
"$bin" compare-posts "$ENDPOINTKIT_ECHO_URL" "${PAIRS:-10}" 1000 16
"$bin" pipeline-cost "$state/www/user-1k.json" 40000
"$bin" cancel-storm "$ENDPOINTKIT_FAULT_URL" 1000
"$bin" size-limits "$ENDPOINTKIT_FAULT_URL" 1
# Each download side in a process of its own, rotating which goes first.
for round in 1 2 3; do
    case $round in
        1) sides="whole parts urlsession" ;;
        2) sides="parts urlsession whole" ;;
        *) sides="urlsession whole parts" ;;
    esac
    for side in $sides; do "$bin" download "$ENDPOINTKIT_NGINX_URL" 1024 1 "$side" | tail -n +2; done
done
"$bin" stream "$ENDPOINTKIT_NGINX_URL" 1024
"$bin" cache-walk "$ENDPOINTKIT_FAULT_URL" 100
"$bin" cache-hit "$ENDPOINTKIT_NGINX_URL" "${PAIRS:-12}"
"$bin" cache-memory "$ENDPOINTKIT_NGINX_URL" 2000
"$bin" model-store 10000
"$bin" request-building 100000
"$bin" multipart-upload "$ENDPOINTKIT_NGINX_URL" 64
"$bin" multipart-upload "$ENDPOINTKIT_NGINX_URL" 256
"$bin" load "$ENDPOINTKIT_HTTPBIN_URL" 1000 64
"$bin" load "$ENDPOINTKIT_HTTPBIN_URL" 5000 64
scripts/benchmark-instructions.sh 20 120
scripts/benchmark-instructions.sh cache 20 120
