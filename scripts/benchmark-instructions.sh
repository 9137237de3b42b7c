#!/usr/bin/env bash
# Instructions per call, counted by callgrind (repeatable whatever the machine's load): sequential 1 KB calls
# decoding `{"result": User}` from loopback nginx, through EndpointKit's default client and through the raw client
# configured the same way, grouped by library. Each side runs twice, with FEW and MANY calls; the difference
# divided by MANY - FEW is the cost of one call, without start-up; heap allocations per call are counted the same
# way (scripts/callgrind-cost.py). With COST_JSON=FILE the totals are also written to FILE (scripts/cost-gate.sh).
# With COST_RUNS=N each of the four runs is made N times and the lowest count of each is kept: a URLSession call's
# count varies from run to run (FoundationNetworking's loop turns while a response is awaited, and re-arms timers),
# always upwards.
#   scripts/benchmark-instructions.sh [urlsession|pipeline|ahc|cache|pipeline-cache|cache-hit] [FEW] [MANY]
#     urlsession (the default): EndpointKit's URLSessionTransport against raw URLSession
#     pipeline: the README pipeline (auth, retry, throttle, logging, a validator) against raw URLSession sending
#       the same Authorization header
#     ahc: EndpointKit over AsyncHTTPClientTransport (Adapters/AsyncHTTPClient) against raw AsyncHTTPClient
#     cache, pipeline-cache: EndpointKit (or the pipeline) with the HTTP cache on, for calls it cannot serve,
#       against the same without the cache: what the cache's step costs
#     cache-hit: a fresh hit from the cache, decoded, against a raw URLSession request, decoded
#     observability, observability-traced (Adapters/Observability): EndpointKit with the Observability middleware
#       and nothing bootstrapped (or with the in-memory tracer), against EndpointKit without it; -ahc variants
#       send through AsyncHTTPClientTransport
set -euo pipefail
cd "$(dirname "$0")/.."
# Read, then taken out of the environment: SwiftPM's build commands carry the environment, and a value that
# changes between two runs (the gate's file for each stack) would rebuild EndpointKit each time.
cost_json=${COST_JSON:-}
cost_runs=${COST_RUNS:-1}
unset COST_JSON COST_RUNS
stack=urlsession
case "${1:-}" in
    urlsession | pipeline | ahc | cache | pipeline-cache | cache-hit) stack=$1; shift ;;
    observability | observability-ahc | observability-traced | observability-traced-ahc) stack=$1; shift ;;
esac
few=${1:-20}
many=${2:-120}
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-bench.XXXXXX")
trap 'scripts/test-servers.sh stop "$state" || true; rm -rf "$state"' EXIT
scripts/test-servers.sh start "$state"
# shellcheck disable=SC1091
source "$state/env"
if ! command -v valgrind >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
if [[ $stack == observability* ]]; then
    swift build --enable-all-traits -c release --product EndpointKitObservabilityInstructions
    built=$(swift build --enable-all-traits -c release --show-bin-path)/EndpointKitObservabilityInstructions
    bin="$state/EndpointKitObservabilityInstructions"
    strip --strip-debug -o "$bin" "$built"
    raw_name="EndpointKit alone"
elif [ "$stack" = ahc ]; then
    swift build --enable-all-traits -c release --product EndpointKitAsyncHTTPClientInstructions
    built=$(swift build --enable-all-traits -c release --show-bin-path)/EndpointKitAsyncHTTPClientInstructions
    # This valgrind cannot read the DWARF of a binary that links SwiftNIO ("corrupted debuginfo"); the symbol
    # table, which names the functions, is kept.
    bin="$state/EndpointKitAsyncHTTPClientInstructions"
    strip --strip-debug -o "$bin" "$built"
    raw_name="raw AsyncHTTPClient"
else
    swift build --enable-all-traits -c release --product EndpointKitInstructions
    bin=$(swift build --enable-all-traits -c release --show-bin-path)/EndpointKitInstructions
    raw_name="raw URLSession"
fi
raw_side=raw
kit_side=kit
case $stack in
    pipeline) raw_side=raw-auth kit_side=pipeline raw_name="raw URLSession + auth" ;;
    cache) raw_side=kit kit_side=kit-cache raw_name="EndpointKit, no cache" ;;
    pipeline-cache) raw_side=pipeline kit_side=pipeline-cache raw_name="pipeline, no cache" ;;
    cache-hit) kit_side=kit-hit ;;
    observability) raw_side=kit kit_side=observed ;;
    observability-traced) raw_side=kit kit_side=traced ;;
    observability-ahc) raw_side=kit-ahc kit_side=observed-ahc ;;
    observability-traced-ahc) raw_side=kit-ahc kit_side=traced-ahc ;;
esac
for side in raw kit; do
    argument=$raw_side
    [ "$side" = kit ] && argument=$kit_side
    for count in "$few" "$many"; do
        for run in $(seq "$cost_runs"); do
            out="$state/$side.$count.$run"
            valgrind --tool=callgrind --callgrind-out-file="$out.out" \
                "$bin" "$argument" "$ENDPOINTKIT_NGINX_URL" "$count" >/dev/null 2>&1
            callgrind_annotate --auto=no --threshold=100 "$out.out" >"$out.txt" 2>/dev/null
        done
    done
done
if [ -n "$cost_json" ]; then
    # For the cost gate, EndpointKit's side once more under DHAT, whose stacks tell the allocations made under
    # EndpointKit's own functions (the same in every run) from those of the transport's threads (which vary).
    for count in "$few" "$many"; do
        valgrind --tool=dhat --num-callers=40 --dhat-out-file="$state/kit.$count.dhat.json" \
            "$bin" "$kit_side" "$ENDPOINTKIT_NGINX_URL" "$count" >/dev/null 2>&1
    done
fi
scripts/callgrind-cost.py "$state" "$few" "$many" "$raw_name" ${cost_json:+--json "$cost_json"}
