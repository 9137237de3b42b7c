#!/usr/bin/env python3
"""Prints the public API of the symbol graphs in a folder, one declaration a line, sorted, without the members
inherited from the standard library's protocols: the listing that API/*.txt keeps on record (scripts/check-docs.sh compares them, and fails when the API changed without it).

    scripts/api-listing.py GRAPHS_DIR MODULE   # MODULE.symbols.json and MODULE@*.symbols.json
"""
import json
import pathlib
import sys


def declaration(symbol):
    fragments = symbol.get("declarationFragments") or []
    text = "".join(fragment.get("spelling", "") for fragment in fragments)
    return " ".join(text.split())


def inherited_from_standard_library(symbol):
    """A member a type gets from a protocol of the standard library (`!=`, `hashValue`, `Sequence`'s methods):
    the symbol graph marks it synthesized, under the standard library's own identifier (`s:s…` or `s:S…`). It says
    nothing about EndpointKit's API, so the listing leaves it out."""
    precise = symbol.get("identifier", {}).get("precise", "")
    return "::SYNTHESIZED::" in precise and precise.startswith(("s:s", "s:S"))


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
            if symbol.get("accessLevel") not in ("public", "open") or inherited_from_standard_library(symbol):
                continue
            where = ".".join(symbol.get("pathComponents", []))
            kind = symbol.get("kind", {}).get("displayName", "?")
            lines.add(f"{extended}{where} [{kind}] {declaration(symbol)}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
