#!/usr/bin/env python3
"""A fixture server made from an OpenAPI description, for the generated endpoints' round trip.

    openapi-roundtrip-server.py SPEC DIR [--seed N] [--sample COUNT]

Writes DIR/samples.json (for every operation, a sample value of each parameter and of its JSON or form request
body, made from their schemas by hypothesis-jsonschema, and the API's base path), then serves on 127.0.0.1: each request is
validated against the description by openapi-core (the verdict appended to DIR/requests.jsonl) and answered with a
body made from the operation's success response schema, seeded by N and the operation. DIR/port holds the port
once the server listens. SPEC may be gzipped. Stops on SIGTERM. With --sample, only COUNT operations, drawn with
the seed, have samples (Stripe's 468 take the fixture too long to answer in CI).

Values are schema-valid with these choices, said here because they are choices: integers without bounds stay
within +/-2^53 (JSON's interoperable range, RFC 8259); a path parameter string without a pattern, an enum or a
format hypothesis draws from is made of letters, digits, '-' and '_' (a '/' would name another path); header and
cookie strings are printable ASCII; a request leaves out read-only members and a response write-only ones; a
schema with members but no type is an object; and a form field a form requires without describing it is text.
"""
import copy
import gzip
import hashlib
import json
import random
import sys
import threading
import warnings

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis_jsonschema import from_schema
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

warnings.filterwarnings("ignore")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# OpenAPI's annotations, which JSON Schema does not have (extensions, `x-…`, are dropped too).
DROPPED = {"example", "examples", "discriminator", "xml", "externalDocs", "deprecated", "readOnly", "writeOnly"}
LIMIT = 2**53
# String formats hypothesis-jsonschema draws from; a path parameter of another format is drawn as a plain name.
FORMATS = {"date", "date-time", "time", "uuid", "email", "ipv4", "ipv6", "hostname"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return yaml.load(handle, Loader=yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader)


def pointer(document, ref):
    node = document
    for part in ref.lstrip("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def json_schema(document, schema, depth=0, hidden="readOnly"):
    """`schema` (OpenAPI 3.0) as plain JSON Schema: references inlined (a reference nested deeper than four is
    false, so an optional member that recurses is left out), `nullable` as a null alternative, annotations gone,
    members marked `hidden` (`readOnly` in a request, `writeOnly` in a response) left out, and a schema with
    members but no type an object, as OpenAPI tools read it."""
    if isinstance(schema, list):
        return [json_schema(document, item, depth, hidden) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth > 4:
            return False
        return json_schema(document, pointer(document, schema["$ref"]), depth + 1, hidden)
    result = {}
    for key, value in schema.items():
        if key in DROPPED or key.startswith("x-") or key == "nullable":
            continue
        if key == "properties":
            kept = {name: member for name, member in value.items() if not resolved(document, member).get(hidden)}
            result[key] = {name: json_schema(document, member, depth, hidden) for name, member in kept.items()}
            gone = set(value) - set(kept)
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            result[key] = json_schema(document, value, depth, hidden)
        else:
            result[key] = value
    if "required" in result and "properties" in schema:
        result["required"] = [name for name in result["required"] if name not in gone]
    if "type" not in result and ("properties" in result or "additionalProperties" in result):
        result["type"] = "object"
    kind = result.get("type")
    if kind == "integer":
        result.setdefault("minimum", -LIMIT)
        result.setdefault("maximum", LIMIT)
    if schema.get("nullable"):
        return {"anyOf": [result, {"type": "null"}]}
    return result


def example(schema, seed, tries=4):
    """One value of `schema`, the same for the same seed: the last of `tries` draws (the first are the simplest)."""
    found = []

    @hypothesis_seed(seed)
    @settings(max_examples=tries, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(from_schema(schema))
    def draw(value):
        found.append(value)

    draw()
    return found[-1]


def seed_of(base, *parts):
    digest = hashlib.sha256("/".join([str(base), *parts]).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def operations(document):
    for path, item in document.get("paths", {}).items():
        shared = item.get("parameters", [])
        for method in METHODS:
            operation = item.get(method)
            if operation:
                yield path, method, operation, shared


def label_of(path, method, operation):
    """The operation's label as the generator names it: its operationId, or its method and path."""
    return operation.get("operationId") or f"{method.upper()} {path}"


def resolved(document, node):
    while isinstance(node, dict) and "$ref" in node:
        node = pointer(document, node["$ref"])
    return node


def parameter_schema(document, parameter):
    schema = json_schema(document, parameter.get("schema", {"type": "string"}))
    if isinstance(schema, dict) and schema.get("type") == "string" and "pattern" not in schema:
        if parameter["in"] == "path" and schema.get("format") not in FORMATS and "enum" not in schema:
            schema = dict(schema, pattern="^[A-Za-z0-9_-]+$", minLength=max(schema.get("minLength", 1), 1))
        elif parameter["in"] in ("header", "cookie"):
            schema = dict(schema, pattern="^[!-~]+$", minLength=max(schema.get("minLength", 1), 1))
    return schema


def form_fields(schema):
    """A form's schema with every field it requires but does not describe as text: a form field holds text, and
    an object drawn for one would be sent as other fields (Box's token revocation requires an undeclared
    `grant_type`)."""
    if not isinstance(schema, dict):
        return schema
    properties = dict(schema.get("properties", {}))
    for name in schema.get("required", []):
        if properties.get(name, {}) in ({}, True):
            properties[name] = {"type": "string"}
    return dict(schema, properties=properties) if properties else schema


def declare_form_fields(document):
    """Declares, as text, each field a form requires without describing it: openapi-core reads only a form's
    declared fields, so it would find such a field missing however it was sent."""
    for _, _, operation, _ in operations(document):
        content = resolved(document, operation.get("requestBody", {})).get("content", {})
        schema = resolved(document, content.get("application/x-www-form-urlencoded", {}).get("schema"))
        if isinstance(schema, dict):
            properties = schema.setdefault("properties", {})
            for name in schema.get("required", []):
                properties.setdefault(name, {"type": "string"})


def samples(document, seed, count=None):
    """For each operation (or `count` of them, drawn with `seed`): `place:name` → a value of each parameter,
    `body` → a JSON or form request body."""
    made = {}
    every = list(operations(document))
    if count is not None:
        every = random.Random(seed).sample(every, min(count, len(every)))
    for path, method, operation, shared in every:
        label = label_of(path, method, operation)
        values = {}
        parameters = {}
        for parameter in [resolved(document, p) for p in shared + operation.get("parameters", [])]:
            parameters[(parameter["in"], parameter["name"])] = parameter
        for (place, name), parameter in parameters.items():
            try:
                values[f"{place}:{name}"] = example(parameter_schema(document, parameter), seed_of(seed, label, name))
            except Exception as error:  # a schema hypothesis cannot draw from: the call is reported, not made
                values[f"{place}:{name}"] = {"$unavailable": str(error)[:200]}
        body = resolved(document, operation.get("requestBody", {}))
        content = body.get("content", {})
        form = content.get("application/x-www-form-urlencoded", {})
        schema = content.get("application/json", form).get("schema")
        if schema is not None:
            try:
                schema = json_schema(document, schema)
                if "application/json" not in content:
                    schema = form_fields(schema)
                values["body"] = example(schema, seed_of(seed, label, "body"))
            except Exception as error:
                values["body"] = {"$unavailable": str(error)[:200]}
        made[label] = values
    return made


def success(document, operation):
    """The status and JSON schema of the operation's first documented success, or `(204, None)`."""
    responses = operation.get("responses", {})
    for status in sorted(k for k in map(str, responses) if k.startswith("2")) + ["default"]:
        response = resolved(document, responses.get(status) or responses.get(int(status) if status.isdigit() else status))
        if not response:
            continue
        code = int(status) if status.isdigit() else 200
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        return code, schema
    return 204, None


class Fixture:
    def __init__(self, document, seed, log_path, base_url):
        self.document = document
        self.seed = seed
        served = copy.deepcopy(document)
        served["servers"] = [{"url": base_url}]
        # A path or an operation with servers of its own (Linode's object storage, at /v4beta) is checked at the
        # API's base: generated factories are relative to the environment, and each such factory's documentation
        # says where the description serves it.
        for item in served.get("paths", {}).values():
            item.pop("servers", None)
            for method in METHODS:
                if isinstance(item.get(method), dict):
                    item[method].pop("servers", None)
        # Not the description's own check: Linode's fails it (a boolean default of an integer), and what is checked
        # here is each request against what the description says.
        declare_form_fields(served)
        self.openapi = OpenAPI.from_dict(served, config=Config(spec_validator_cls=None))
        self.by_id = {label_of(path, method, op): (path, method, op) for path, method, op, _ in operations(document)}
        self.log = open(log_path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        request = Request(environ)
        label = request.headers.get("X-Round-Trip-Operation", "")
        errors = [str(error)[:500] for error in self.openapi.iter_request_errors(WerkzeugOpenAPIRequest(request))]
        with self.lock:
            self.log.write(json.dumps({"operation": label, "valid": not errors, "errors": errors}) + "\n")
            self.log.flush()
        found = self.by_id.get(label)
        if not found:
            return Response("unknown operation", status=404)(environ, start_response)
        code, schema = success(self.document, found[2])
        if schema is None:
            return Response(status=code if code != 200 else 204)(environ, start_response)
        body = example(json_schema(self.document, schema, hidden="writeOnly"), seed_of(self.seed, label, "response"))
        return Response(json.dumps(body), status=code, content_type="application/json")(environ, start_response)


def main():
    arguments = sys.argv[1:]
    options = {"--seed": 1, "--sample": None}
    for option in options:
        if option in arguments:
            index = arguments.index(option)
            options[option] = int(arguments[index + 1])
            del arguments[index:index + 2]
    seed, count = options["--seed"], options["--sample"]
    spec, folder = arguments
    document = load(spec)
    base = document.get("servers", [{"url": "/"}])[0]["url"]
    base_path = "/" + base.split("://", 1)[-1].split("/", 1)[1] if "://" in base and "/" in base.split("://", 1)[1] else "/"
    print(f"openapi-roundtrip-server: seed {seed}", flush=True)
    with open(f"{folder}/samples.json", "w", encoding="utf-8") as handle:
        made = samples(document, seed, count)
        json.dump({"base": base_path.rstrip("/"), "seed": seed, "sampled": count is not None, "operations": made}, handle)
    server = make_server("127.0.0.1", 0, None, threaded=True)
    port = server.server_port
    server.app = Fixture(document, seed, f"{folder}/requests.jsonl", f"http://127.0.0.1:{port}{base_path.rstrip('/')}")
    with open(f"{folder}/port", "w", encoding="utf-8") as handle:
        handle.write(str(port))
    server.serve_forever()


if __name__ == "__main__":
    main()
