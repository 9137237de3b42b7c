#!/usr/bin/env bash
# A trace that reaches a real OTLP receiver: exports one traced call with swift-otel (OTLP over HTTP, protobuf) to a
# small local receiver (scripts/otlp-receiver.py, decoding with opentelemetry-proto from PyPI), then checks the
# span tree (handler → call span → client span, one trace) and that the traceparent httpbin saw names the client
# span. Not part of scripts/test.sh: swift-otel takes about seven minutes to build.
#   scripts/otlp-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-otlp.XXXXXX")
receiver=""
cleanup() {
    [ -n "$receiver" ] && kill "$receiver" 2>/dev/null || true
    scripts/test-servers.sh stop "$state" >/dev/null 2>&1 || true
    rm -rf "$state"
}
trap cleanup EXIT
python3 -c 'import opentelemetry.proto' 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check opentelemetry-proto
scripts/test-servers.sh start "$state" >/dev/null
# shellcheck disable=SC1091
source "$state/env"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 scripts/otlp-receiver.py "$port" "$state/spans.jsonl" &
receiver=$!
package=Adapters/Observability/OTLPCheck
swift build --package-path "$package" --product OTLPCheck 2>&1 | tail -1
OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$port" OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
    OTEL_BSP_SCHEDULE_DELAY=100 \
    "$(swift build --package-path "$package" --show-bin-path)/OTLPCheck" "$ENDPOINTKIT_HTTPBIN_URL" | tail -1 \
    >"$state/seen.json"
python3 - "$state/spans.jsonl" "$state/seen.json" <<'PY'
import json, sys
spans = [json.loads(line) for line in open(sys.argv[1])] if open(sys.argv[1]).read() else []
seen = json.load(open(sys.argv[2]))["traceparent"]
by_name = {span["name"]: span for span in spans}
problems = []
handler, call, client = by_name.get("handler"), by_name.get("GET /anything/{id}"), None
client = next((s for s in spans if s["kind"] == 3), None)  # SPAN_KIND_CLIENT
call = next((s for s in spans if s["kind"] == 1 and s["name"] != "handler"), None)  # SPAN_KIND_INTERNAL
if not (handler and call and client):
    problems.append(f"expected handler, call and client spans, got {[(s['name'], s['kind']) for s in spans]}")
else:
    if len({handler["trace_id"], call["trace_id"], client["trace_id"]}) != 1:
        problems.append("the spans are not one trace")
    if call["parent_span_id"] != handler["span_id"]:
        problems.append("the call span is not the handler's child")
    if client["parent_span_id"] != call["span_id"]:
        problems.append("the client span is not the call span's child")
    expected = f"00-{client['trace_id']}-{client['span_id']}-01"
    if seen != expected:
        problems.append(f"httpbin saw traceparent {seen!r}, expected {expected!r}")
    for name in ["http.request.method", "url.full", "url.template", "server.address", "server.port",
                 "http.response.status_code"]:
        if name not in client["attributes"]:
            problems.append(f"the client span lacks {name}")
print(f"otlp-check: the receiver decoded {len(spans)} spans")
for span in spans:
    print(f"  {span['name']} (kind {span['kind']}) trace {span['trace_id'][:8]}… span {span['span_id']} "
          f"parent {span['parent_span_id'] or '-'} {span['attributes']}")
print(f"  the upstream saw traceparent: {seen}")
if problems:
    print("otlp-check: FAILED\n  " + "\n  ".join(problems))
    sys.exit(1)
print("otlp-check: passed: handler → call span → client span in one trace; the upstream continued the client span")
PY
