#!/usr/bin/env bash
# Builds the DocC catalog with the toolchain alone; a broken ``link`` or a documentation warning fails.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-symbols.XXXXXX")
out=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-docs.XXXXXX")
trap 'rm -rf "$graphs" "$out"' EXIT
dumped=.build-docs/symbolgraph-output
rm -rf .build-docs/*/symbolgraph "$dumped"
# The command also tries the test-only aggregate modules, fails on those and exits non-zero; what counts is
# that it wrote EndpointKit's graph anew, checked below.
log=$(swift package --scratch-path .build-docs dump-symbol-graph 2>&1 || true)
written=$(echo "$log" | sed -n 's/^Files written to //p')
if [ -z "$written" ] || [ ! -f "$written/EndpointKit.symbols.json" ]; then
    echo "check-docs: no symbol graph for EndpointKit was written:" >&2
    echo "$log" | tail -20 >&2
    exit 1
fi
mkdir -p "$dumped"
cp "$written"/EndpointKit*.symbols.json "$dumped"/
# Only the library's own graphs: the catalog documents EndpointKit.
cp "$dumped"/EndpointKit.symbols.json "$dumped"/EndpointKit@*.symbols.json "$graphs"/
docc convert Sources/EndpointKit/EndpointKit.docc --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name EndpointKit --fallback-bundle-identifier org.endpointkit.EndpointKit \
    --output-path "$out" --warnings-as-errors
