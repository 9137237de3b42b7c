#!/usr/bin/env bash
# Builds the DocC catalog with the toolchain alone; a broken ``link`` or a documentation warning fails.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-symbols.XXXXXX")
out=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-docs.XXXXXX")
trap 'rm -rf "$graphs" "$out"' EXIT
swift build --scratch-path .build-docs --target EndpointKit -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    >/dev/null
docc convert Sources/EndpointKit/EndpointKit.docc --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name EndpointKit --fallback-bundle-identifier org.endpointkit.EndpointKit \
    --output-path "$out" --warnings-as-errors
