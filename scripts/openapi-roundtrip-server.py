#!/usr/bin/env python3
"""A fixture server made from an OpenAPI description, for the generated endpoints' round trip.

    openapi-roundtrip-server.py SPEC DIR [--seed N] [--sample COUNT]

Writes DIR/samples.json (for every operation, a sample value of each parameter and of its JSON or form request
body, made from their schemas by hypothesis-jsonschema, and the API's base path), then serves on 127.0.0.1: each request is
validated against the description by openapi-core (the verdict appended to DIR/requests.jsonl) and answered with a
body made from the operation's success response schema, seeded by N and the operation. DIR/port holds the port
once the server listens. SPEC may be gzipped. Stops on SIGTERM. With --sample, only COUNT operations, drawn with
the seed, have samples.

Values are schema-valid with these choices, said here because they are choices: integers without bounds stay
within +/-2^53 (JSON's interoperable range, RFC 8259); a path parameter string without a pattern, an enum or a
format hypothesis draws from is made of letters, digits, '-' and '_' (a '/' would name another path); header and
cookie strings are printable ASCII; a request leaves out read-only members and a response write-only ones; a
schema with members but no type is an object; a form field a form requires without describing it is text; the
lists and objects of a form or a deepObject parameter hold something and their keys no bracket (bracketed names
cannot carry them otherwise); and a schema whose
references, inlined four deep, make more than 60,000 characters of text is drawn with the references past a
shallower depth left out where a value may leave them out (Stripe's expandable members made response schemas of
megabytes, which took hypothesis minutes each; see `drawable`).

openapi-core reads `deepObject` style one level deep and for objects only, so it refuses every list Stripe declares
in that style (`expand[0]=…`, `line_items[0][price]=…`) however it is written. Those parameters, and forms with
a `deepObject` encoding, are checked here instead: their bracketed names read back into objects and lists (a list
is written by index, `name[0]`, as Stripe reads it), their text read as the schema's numbers and booleans, and the
result validated against the schema as JSON Schema (draft 4, as OpenAPI 3.0's); openapi-core checks the rest.
"""
import copy
import gzip
import hashlib
import json
import random
import re
import sys
import threading
import warnings

import yaml
from jsonschema import Draft4Validator
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
# How many references deep a schema is inlined where a value may leave it out (see `json_schema`), and where it
# may not; and the size of schema text that `drawable` keeps to.
REF_DEPTH = 4
REF_LIMIT = 12
SIZE_BUDGET = 60_000
# String formats hypothesis-jsonschema draws from; a path parameter of another format is drawn as a plain name.
FORMATS = {"date", "date-time", "time", "uuid", "email", "ipv4", "ipv6", "hostname"}
# The keywords whose values are schemas, or maps or lists of schemas.
NESTED = {"items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return yaml.load(handle, Loader=yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader)


def pointer(document, ref):
    node = document
    for part in ref.lstrip("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def json_schema(document, schema, depth=0, hidden="readOnly", cut=REF_DEPTH, optional=False):
    """`schema` (OpenAPI 3.0) as plain JSON Schema: references inlined, `nullable` as a null alternative,
    annotations gone, members marked `hidden` (`readOnly` in a request, `writeOnly` in a response) left out, and a
    schema with members but no type an object, as OpenAPI tools read it.

    A reference nested deeper than `cut` is inlined only where a value needs it: where it may be left out (an
    optional member, a list's items when it may be empty, one of several alternatives) it is `false`, so such
    values are not drawn, which keeps every value drawn a value of the schema. Deeper than `REF_LIMIT` it is
    `false` wherever it is."""
    if isinstance(schema, list):
        return [json_schema(document, item, depth, hidden, cut) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        if depth > REF_LIMIT or (depth > cut and optional):
            return False
        return json_schema(document, pointer(document, schema["$ref"]), depth + 1, hidden, cut)
    result = {}
    for key, value in schema.items():
        if key in DROPPED or key.startswith("x-") or key == "nullable":
            continue
        if key == "properties":
            kept = {name: member for name, member in value.items() if not resolved(document, member).get(hidden)}
            needed = set(schema.get("required", []))
            result[key] = {
                name: json_schema(document, member, depth, hidden, cut, optional=name not in needed)
                for name, member in kept.items()
            }
            gone = set(value) - set(kept)
        elif key in ("anyOf", "oneOf"):
            every = [json_schema(document, item, depth, hidden, cut, optional=True) for item in value]
            result[key] = [item for item in every if item is not False] or json_schema(document, value, depth, hidden, cut)
        elif key in ("items", "additionalProperties"):
            may_be_empty = key == "additionalProperties" or not schema.get("minItems")
            result[key] = json_schema(document, value, depth, hidden, cut, optional=may_be_empty)
        elif key in ("not", "allOf"):
            # Inside `not`, leaving a value out would let more values in: nothing is cut there.
            result[key] = json_schema(document, value, depth, hidden, REF_LIMIT if key == "not" else cut)
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


def drawable(document, schema, hidden):
    """`schema` as JSON Schema (`json_schema`), cut at the deepest reference depth, four at most, whose text is
    at most `SIZE_BUDGET` characters (or at depth 0 when none is): hypothesis takes seconds per 100,000 characters of schema, and Stripe's
    expandable members (an ID, or the object it names) make a response's schema megabytes at depth four."""
    best = json_schema(document, schema, hidden=hidden, cut=0)
    for cut in range(1, REF_DEPTH + 1):  # a deeper cut only adds to the text
        deeper = json_schema(document, schema, hidden=hidden, cut=cut)
        if len(json.dumps(deeper)) > SIZE_BUDGET:
            break
        best = deeper
    return best


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
    if parameter.get("style") == "deepObject":
        schema = form_sample_schema(schema)  # bracketed names, as a form's
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


def form_sample_schema(schema):
    """A form's schema narrowed to what a form can carry, for drawing its sample: every list and object that can
    hold something does (an empty one sends no field, so a required one would be missing), and no key of an object is empty
    or holds a bracket (a bracketed name cannot carry it; EndpointKit refuses to encode one)."""
    if isinstance(schema, list):
        return [form_sample_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {key: form_sample_schema(value) if key in NESTED - {"not"} else value for key, value in schema.items()}
    if isinstance(result.get("properties"), dict):
        result["properties"] = {name: form_sample_schema(member) for name, member in result["properties"].items()}
    if key_in(result, "type", "array"):
        result["minItems"] = max(result.get("minItems", 0), 1)
    can_hold = result.get("additionalProperties") is not False or any(
        member is not False for member in result.get("properties", {}).values())
    if key_in(result, "type", "object") and can_hold:
        result["minProperties"] = max(result.get("minProperties", 0), 1)
        result["propertyNames"] = {"pattern": r"^[^\[\]]+$"}
    return result


def bracket_free(value):
    """`value` without the object keys that are empty or hold a bracket, at any depth: hypothesis-jsonschema does
    not always keep to `propertyNames` (an object among `anyOf` alternatives drew `a]`), and no such key is one a
    schema declares."""
    if isinstance(value, dict):
        return {key: bracket_free(item) for key, item in value.items() if key and "[" not in key and "]" not in key}
    if isinstance(value, list):
        return [bracket_free(item) for item in value]
    return value


def key_in(schema, key, value):
    found = schema.get(key)
    return found == value or (isinstance(found, list) and value in found)


def declare_form_fields(document):
    """Declares, as text, each field a form (or a multipart form) requires without describing it: openapi-core
    reads only a form's declared fields, so it would find such a field missing however it was sent."""
    for _, _, operation, _ in operations(document):
        content = resolved(document, operation.get("requestBody", {})).get("content", {})
        for media in ("application/x-www-form-urlencoded", "multipart/form-data"):
            schema = resolved(document, content.get(media, {}).get("schema"))
            if isinstance(schema, dict):
                properties = schema.setdefault("properties", {})
                for name in schema.get("required", []):
                    properties.setdefault(name, {"type": "string"})


def drop_multipart_styles(document):
    """Removes `style`, `explode` and `allowReserved` from multipart encodings, which OpenAPI 3.0 says are ignored
    for any media type but a URL-encoded form: openapi-core applies them (Stripe's file upload declares
    `expand` in `deepObject` style) and then refuses the part however it is sent."""
    for _, _, operation, _ in operations(document):
        content = resolved(document, operation.get("requestBody", {})).get("content", {})
        for encoding in content.get("multipart/form-data", {}).get("encoding", {}).values():
            for key in ("style", "explode", "allowReserved"):
                encoding.pop(key, None)


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
                value = example(parameter_schema(document, parameter), seed_of(seed, label, name))
                values[f"{place}:{name}"] = bracket_free(value) if parameter.get("style") == "deepObject" else value
            except Exception as error:  # a schema hypothesis cannot draw from: the call is reported, not made
                values[f"{place}:{name}"] = {"$unavailable": str(error)[:200]}
        body = resolved(document, operation.get("requestBody", {})).get("content", {})
        if any(key in body for key in ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")):
            try:
                values["body"] = body_sample(document, body, seed_of(seed, label, "body"))
            except Exception as error:
                values["body"] = {"$unavailable": str(error)[:200]}
        made[label] = values
    return made


def bracketed(name):
    """`a[b][0]` → `["a", "b", "0"]`; `None` for a name that is not a bracketed path."""
    match = re.fullmatch(r"([^\[\]]+)((?:\[[^\[\]]*\])*)", name)
    return [match.group(1), *re.findall(r"\[([^\[\]]*)\]", match.group(2))] if match else None


def nested(pairs, deep):
    """Form or query pairs with bracketed names as one object, and `None`; or `None` and why they are not: a name
    that is not a bracketed path, two names that put different things at one place, or a name in `deep`
    (deepObject style, whose lists are indexed) repeated. A repeated name is a list (a form's `form` style); an
    indexed one an object keyed by index here (see `read_as`)."""
    result = {}
    for name, value in pairs:
        path = bracketed(name)
        if path is None or "" in path:
            return None, f"{name} is not a bracketed path"
        node = result
        for key in path[:-1]:
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                return None, f"{name} names a member of a value"
        if path[-1] in node:
            if path[0] in deep or isinstance(node[path[-1]], dict):
                return None, f"{name} is repeated"
            previous = node[path[-1]]
            node[path[-1]] = (previous if isinstance(previous, list) else [previous]) + [value]
        else:
            node[path[-1]] = value
    return result, None


def read_as(value, schema):
    """`value` (text, and objects of text, from `nested`) read as `schema` says: numbers and booleans from their
    text, an object keyed 0, 1, … as a list where the schema takes a list; of alternatives, the first that
    validates. What cannot be read is returned as it is, for the validator to refuse."""
    if not isinstance(schema, dict):
        return value
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        for alternative in alternatives:
            read = read_as(value, alternative)
            if Draft4Validator(alternative).is_valid(read):
                return read
        return value
    kind = schema.get("type")
    if kind == "array" and isinstance(value, dict) and sorted(value, key=str) == sorted(map(str, range(len(value)))):
        value = [value[str(index)] for index in range(len(value))]
    if kind == "array" and isinstance(value, list):
        return [read_as(item, schema.get("items", {})) for item in value]
    if kind == "object" and isinstance(value, dict):
        members = schema.get("properties", {})
        extra = schema.get("additionalProperties", {})
        return {key: read_as(item, members.get(key, extra)) for key, item in value.items()}
    if isinstance(value, str):
        try:
            if kind == "integer":
                return int(value)
            if kind == "number":
                return float(value)
        except ValueError:
            return value
        if kind == "boolean" and value in ("true", "false"):
            return value == "true"
    return value


def deep_errors(read, schema, where):
    """Why `read`, from `nested` (a value and why there is none), is not valid against `schema` (JSON Schema)."""
    value, reason = read
    if reason:
        return [f"{where}: {reason}"]
    value = read_as(value, schema)
    return [f"{where}: {error.message[:300]}" for error in Draft4Validator(schema).iter_errors(value)][:3]


def body_sample(document, content, seed):
    """A sample of a request body, as the generator picks its content: JSON first, then a form, then multipart.
    A multipart sample is `{"$parts": [{"name", "text", "file", "json"}]}`, one part per declared member drawn: a binary
    string a file, text as it is, any other value JSON text in a part of type `application/json` (OpenAPI's default
    for an object or a list); a member it requires without describing it is text, as in a form (Box's uploads
    require `files` and describe `file`)."""
    if "application/json" in content or "application/x-www-form-urlencoded" in content:
        schema = drawable(document, content.get("application/json", content.get("application/x-www-form-urlencoded"))
                          .get("schema", {}), "readOnly")
        if "application/json" not in content:
            return bracket_free(example(form_sample_schema(form_fields(schema)), seed))
        return example(schema, seed)
    schema = form_fields(drawable(document, content["multipart/form-data"].get("schema", {}), "readOnly"))
    drawn = example(form_sample_schema(schema), seed)
    members = schema.get("properties", {}) if isinstance(schema, dict) else {}
    parts = []
    for name, value in ((name, value) for name, value in drawn.items() if name in members):
        member = members[name] if isinstance(members[name], dict) else {}
        binary = member.get("format") in ("binary", "byte") or "contentMediaType" in member
        text = value if isinstance(value, str) else json.dumps(value)
        parts.append({"name": name, "text": text, "file": binary, "json": not isinstance(value, str)})
    return {"$parts": parts}


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


def deep_parts(document):
    """By operation label, what openapi-core cannot read: its deepObject query parameters, `(name, schema,
    required)`, and its form's `(schema, required)` when a field's encoding is deepObject. Both are taken out of
    `document`, which openapi-core then reads; `deep_request_errors` checks them."""
    found = {}
    for path, method, operation, shared in list(operations(document)):
        query = []
        for parameter in [resolved(document, p) for p in shared + operation.get("parameters", [])]:
            if parameter["in"] == "query" and parameter.get("style") == "deepObject":
                schema = json_schema(document, parameter.get("schema", {}), cut=REF_LIMIT)
                query.append((parameter["name"], schema, parameter.get("required", False)))
        body = resolved(document, operation.get("requestBody", {}))
        content = body.get("content", {})
        media = content.get("application/x-www-form-urlencoded", {})
        form = None
        if any(encoding.get("style") == "deepObject" for encoding in media.get("encoding", {}).values()):
            deep = {name for name, encoding in media["encoding"].items() if encoding.get("style") == "deepObject"}
            schema = json_schema(document, media.get("schema", {}), cut=REF_LIMIT)
            form = (form_fields(schema), body.get("required", False), deep)
        if query or form:
            found[label_of(path, method, operation)] = (query, form)
    for path, method, operation, shared in list(operations(document)):
        for owner in (document["paths"][path], operation):
            owner["parameters"] = [p for p in owner.get("parameters", []) if not is_deep(document, p)]
        if found.get(label_of(path, method, operation), (None, None))[1] is not None:
            operation.pop("requestBody", None)
    return found


def is_deep(document, parameter):
    parameter = resolved(document, parameter)
    return parameter.get("in") == "query" and parameter.get("style") == "deepObject"


def deep_request_errors(request, query, form):
    """Why the deepObject parts of `request` (see `deep_parts`) are not valid."""
    errors = []
    for name, schema, required in query:
        pairs = [(key, value) for key, value in request.args.items(multi=True) if (bracketed(key) or [None])[0] == name]
        if pairs:
            value, reason = nested(pairs, {name})
            errors += deep_errors((value and value.get(name), reason), schema, f"query parameter {name}")
        elif required:
            errors.append(f"query parameter {name}: required, not sent")
    if form is not None:
        schema, required, deep = form
        pairs = list(request.form.items(multi=True))
        if pairs and not (request.content_type or "").startswith("application/x-www-form-urlencoded"):
            errors.append(f"form: sent as {request.content_type}")
        elif pairs or required:
            errors += deep_errors(nested(pairs, deep), schema, "form")
    return errors


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
        drop_multipart_styles(served)
        self.deep = deep_parts(served)
        self.openapi = OpenAPI.from_dict(served, config=Config(spec_validator_cls=None))
        self.by_id = {label_of(path, method, op): (path, method, op) for path, method, op, _ in operations(document)}
        self.log = open(log_path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        request = Request(environ)
        label = request.headers.get("X-Round-Trip-Operation", "")
        errors = [str(error)[:500] for error in self.openapi.iter_request_errors(WerkzeugOpenAPIRequest(request))]
        if label in self.deep:
            errors += deep_request_errors(request, *self.deep[label])
        with self.lock:
            self.log.write(json.dumps({"operation": label, "valid": not errors, "errors": errors}) + "\n")
            self.log.flush()
        found = self.by_id.get(label)
        if not found:
            return Response("unknown operation", status=404)(environ, start_response)
        code, schema = success(self.document, found[2])
        if schema is None:
            return Response(status=code if code != 200 else 204)(environ, start_response)
        body = example(drawable(self.document, schema, "writeOnly"), seed_of(self.seed, label, "response"))
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
