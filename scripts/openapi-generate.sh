#!/usr/bin/env bash
# scripts/openapi-generate.sh SPEC OUTDIR [OVERLAY] [--allow-left-out]: writes the Swift sources of one module
# generated from the OpenAPI description SPEC (YAML or JSON, gzipped or not) into OUTDIR, building
# endpointkit-openapi first if needed. The tool is built with every trait on, as scripts/test.sh builds, so that
# neither rebuilds the other. With --allow-left-out, operations the tool leaves out (each reported) do not fail it.
set -euo pipefail
flags=()
if [ $# -gt 0 ] && [ "${!#}" = --allow-left-out ]; then
    flags=(--allow-left-out)
    set -- "${@:1:$(($# - 1))}"
fi
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: scripts/openapi-generate.sh SPEC OUTDIR [OVERLAY] [--allow-left-out]" >&2
    exit 64
fi
spec=$(realpath "$1")
out=$(realpath -m "$2")
overlay=()
[ $# -eq 3 ] && overlay=(--overlay "$(realpath "$3")")
cd "$(dirname "$0")/.."

configuration=${OPENAPI_CONFIGURATION:-debug}
log=$(mktemp)
if ! swift build --enable-all-traits -c "$configuration" --product endpointkit-openapi >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
fi
rm -f "$log"
tool="$(swift build --enable-all-traits -c "$configuration" --show-bin-path)/endpointkit-openapi"

if [[ "$spec" == *.gz ]]; then
    unpacked=$(mktemp --suffix=.yaml)
    trap 'rm -f "$unpacked"' EXIT
    gzip -dc "$spec" > "$unpacked"
    spec=$unpacked
fi
"$tool" "$spec" "$out" "${overlay[@]}" "${flags[@]}"
