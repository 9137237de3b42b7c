#!/usr/bin/env python3
"""A small OTLP/HTTP receiver for scripts/otlp-check.sh: accepts POST /v1/traces (protobuf, gzip or not),
decodes it with opentelemetry-proto, and appends every span to OUT as one JSON object per line: name, kind,
trace and span IDs (hex), the parent's, and the attributes. Answers /v1/metrics and /v1/logs with an empty 200,
and GET /spans with how many spans arrived.

    python3 scripts/otlp-receiver.py PORT OUT
"""
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

OUT = sys.argv[2]


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


RECEIVED = [0]


class Receiver(BaseHTTPRequestHandler):
    def do_GET(self):
        """GET /spans: how many spans arrived so far, for the exporter to know its batch was delivered."""
        answer = json.dumps({"count": RECEIVED[0]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        answer = b""
        if self.path == "/v1/traces":
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with open(OUT, "a") as out:
                for resource in request.resource_spans:
                    for scope in resource.scope_spans:
                        for span in scope.spans:
                            RECEIVED[0] += 1
                            out.write(json.dumps({
                                "name": span.name,
                                "kind": span.kind,
                                "trace_id": span.trace_id.hex(),
                                "span_id": span.span_id.hex(),
                                "parent_span_id": span.parent_span_id.hex(),
                                "status": span.status.code,
                                "attributes": {a.key: value_of(a.value) for a in span.attributes},
                            }) + "\n")
            answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver).serve_forever()
