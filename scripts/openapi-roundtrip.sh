#!/usr/bin/env bash
# scripts/openapi-roundtrip.sh SPEC [SEED [SAMPLE]]: the round trip of the endpoints generated from SPEC. A fixture server
# made from SPEC (scripts/openapi-roundtrip-server.py: openapi-core validates each request, hypothesis-jsonschema
# makes each sample argument and each response body, seeded) answers a driver (Generator/RoundTrip/main.swift)
# that calls every generated operation once (or SAMPLE of them, drawn with the seed). Prints each operation's outcome, then the rates: requests the
# description accepts, and schema-valid responses decoded. Exits 1 when a request is invalid or a response is not
# decoded.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
    echo "usage: scripts/openapi-roundtrip.sh SPEC [SEED [SAMPLE]]" >&2
    exit 64
fi
spec=$(realpath "$1")
seed=${2:-1}
sample=()
[ $# -eq 3 ] && sample=(--sample "$3")
cd "$(dirname "$0")/.."

# The fixture server's readers, pinned: the same versions make the same samples from the same seed.
if ! python3 -c 'import openapi_core, hypothesis_jsonschema' 2>/dev/null; then
    echo "openapi round trip: installing openapi-core and hypothesis-jsonschema from PyPI"
    packages=(openapi-core==0.23.1 hypothesis-jsonschema==0.23.1 hypothesis==6.155.2)
    python3 -m pip install --quiet --disable-pip-version-check "${packages[@]}" \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${packages[@]}"
fi

# ENDPOINTKIT_BIN names a debug build with every trait on (scripts/test.sh's), so that this script runs no
# `swift build`, which would wait for another one using the same build folder.
if [ -z "${ENDPOINTKIT_BIN:-}" ]; then
    swift build --enable-all-traits --product endpointkit-openapi >/dev/null
    ENDPOINTKIT_BIN=$(swift build --enable-all-traits --show-bin-path)
fi
bin=$ENDPOINTKIT_BIN
modules="$bin/Modules"
[ -d "$modules" ] || modules="$bin"
work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

if [[ "$spec" == *.gz ]]; then
    gzip -dc "$spec" >"$work/description.yaml"
    spec="$work/description.yaml"
fi
"$bin/endpointkit-openapi" "$spec" "$work/module" --allow-left-out --round-trip-calls "$work/calls.swift" >/dev/null 2>&1
objects=()
while IFS= read -r source; do
    objects+=("$bin/EndpointKit.build/$(basename "$source").o")
done < <(find Sources/EndpointKit -name '*.swift' | sort)
swiftc -swift-version 6 -module-name RoundTrip -I "$modules" "$work"/module/*.swift "$work/calls.swift" \
    Generator/RoundTrip/main.swift "${objects[@]}" -o "$work/round-trip"

python3 scripts/openapi-roundtrip-server.py "$spec" "$work" --seed "$seed" "${sample[@]}" >"$work/server.log" 2>&1 &
server=$!
# The server draws every sample before it listens: about 40 s of CPU for Box's description on a quiet machine, and
# minutes at the lowest priority beside the cost gate's release builds (scripts/test.sh). So it is waited for while it
# lives, up to 30 minutes of wall time.
started=$SECONDS
until [ -s "$work/port" ]; do
    kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    if [ $((SECONDS - started)) -ge 1800 ]; then
        echo "openapi round trip: the fixture server did not start in 30 minutes" >&2
        exit 1
    fi
    sleep 0.2
done
echo "openapi round trip: the fixture server drew its samples in $((SECONDS - started)) s"
"$work/round-trip" "$work/samples.json" "$(cat "$work/port")" | tee "$work/driver.log"

python3 - "$work/requests.jsonl" "$work/driver.log" "$seed" <<'PY'
import collections, json, sys
requests = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
invalid = [r for r in requests if not r["valid"]]
for request in invalid:
    print(f"openapi round trip: {request['operation']}: request invalid: {' | '.join(request['errors'])[:600]}")
outcomes = collections.Counter()
for line in open(sys.argv[2], encoding="utf-8"):
    if line.startswith("round trip: ") and line.count(":") >= 2 and " operations: " not in line:
        outcomes[line.split(": ")[2].strip()] += 1
sent = len(requests)
decoded = outcomes["response decoded"]
answered = decoded + outcomes["response not decoded"]
print(f"openapi round trip (seed {sys.argv[3]}): {sum(outcomes.values())} operations, "
      f"{sum(outcomes.values()) - outcomes['not in the sample']} in the sample, {sent} requests sent, "
      f"{sent - len(invalid)} valid ({100 * (sent - len(invalid)) / max(sent, 1):.1f} %); "
      f"{decoded} of {answered} responses decoded ({100 * decoded / max(answered, 1):.1f} %)")
sys.exit(1 if invalid or decoded != answered else 0)
PY
