#!/usr/bin/env python3
"""Checks HAR files as independent readers see them: the HAR 1.2 schema (Tests/Fixtures/har-1.2.schema.json, with
jsonschema), haralyzer's parser, and mitmproxy's reader (`mitmdump -nr FILE`). Prints one line per file and exits
non-zero when any reader refuses one.

    scripts/validate-har.py FILE...
    scripts/validate-har.py --check-readers    runs each reader once (scripts/test-servers.sh, after installing them)

mitmdump runs through this interpreter (`python3 -c ...`), never found on PATH: where pip installs into a pyenv
version, its scripts reach PATH only after `pyenv rehash`.
"""
import json
import pathlib
import subprocess
import sys

import haralyzer
import jsonschema

MITMDUMP = [sys.executable, "-c", "import sys; from mitmproxy.tools.main import mitmdump; sys.exit(mitmdump())"]
SCHEMA = json.loads((pathlib.Path(__file__).parent.parent / "Tests/Fixtures/har-1.2.schema.json").read_text())


def check(path):
    problems = []
    document = json.loads(pathlib.Path(path).read_text())
    entries = len(document.get("log", {}).get("entries", []))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    problems += [f"schema: {'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(document)]
    try:
        parsed = haralyzer.HarParser(document)
        read = sum(len(page.entries) for page in parsed.pages) if parsed.pages else len(document["log"]["entries"])
        if read != entries:
            problems.append(f"haralyzer read {read} entries of {entries}")
        for entry in parsed.har_data["entries"]:
            haralyzer.HarEntry(entry).request.url  # parses each entry as haralyzer's model
    except Exception as error:  # haralyzer raises its own and plain errors alike
        problems.append(f"haralyzer: {error!r}")
    result = subprocess.run(MITMDUMP + ["-nr", str(path), "--set", "flow_detail=1"], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        problems.append(f"mitmdump exited {result.returncode}: {result.stderr.strip()[-300:]}")
    elif "error" in result.stderr.lower() or "could not" in result.stderr.lower():
        problems.append(f"mitmdump: {result.stderr.strip()[-300:]}")
    flows = len([line for line in result.stdout.splitlines() if line.strip() and not line[0].isspace()])
    if result.returncode == 0 and flows != entries:
        problems.append(f"mitmdump read {flows} flows of {entries} entries")
    return entries, problems


def check_readers():
    result = subprocess.run(MITMDUMP + ["--version"], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        sys.exit(f"validate-har: mitmdump does not run: {result.stderr.strip()[-300:]}")
    print(f"validate-har: jsonschema, haralyzer and mitmdump run ({result.stdout.strip().splitlines()[0]})")


def main():
    if sys.argv[1:] == ["--check-readers"]:
        check_readers()
        return
    failed = False
    for path in sys.argv[1:]:
        entries, problems = check(path)
        if problems:
            failed = True
            print(f"{path}: {entries} entries, REFUSED", file=sys.stderr)
            for problem in problems[:10]:
                print(f"  {problem}", file=sys.stderr)
        else:
            print(f"{path}: {entries} entries valid (HAR 1.2 schema, haralyzer, mitmproxy)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
