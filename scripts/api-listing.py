#!/usr/bin/env python3
"""Prints the public API of the symbol graphs in a folder, one declaration a line, sorted: the listing that
API/*.txt keeps on record (scripts/check-docs.sh compares them, and fails when the API changed without it).

    scripts/api-listing.py GRAPHS_DIR MODULE   # MODULE.symbols.json and MODULE@*.symbols.json
"""
import json
import pathlib
import sys


def declaration(symbol):
    fragments = symbol.get("declarationFragments") or []
    text = "".join(fragment.get("spelling", "") for fragment in fragments)
    return " ".join(text.split())


def main():
    folder, module = pathlib.Path(sys.argv[1]), sys.argv[2]
    files = [folder / f"{module}.symbols.json"] + sorted(folder.glob(f"{module}@*.symbols.json"))
    lines = set()
    for path in files:
        if not path.exists():
            continue
        graph = json.loads(path.read_text())
        extended = "" if "@" not in path.name else path.name.split("@", 1)[1].split(".symbols", 1)[0] + ": "
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            where = ".".join(symbol.get("pathComponents", []))
            kind = symbol.get("kind", {}).get("displayName", "?")
            lines.add(f"{extended}{where} [{kind}] {declaration(symbol)}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
