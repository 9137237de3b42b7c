#!/usr/bin/env bash
# Builds the DocC catalog with the toolchain alone; a broken ``link`` or a documentation warning fails, and so does
# a hop list in the pipeline article that no longer matches the code.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-symbols.XXXXXX")
out=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-docs.XXXXXX")
trap 'rm -rf "$graphs" "$out"' EXIT
dumped=$graphs/all
mkdir -p "$dumped"
# The symbol graphs are read from the modules of the build scripts/test.sh makes (the same command: a no-op when
# it has run), not from a build of their own.
swift build --build-tests --enable-all-traits >/dev/null
modules=$(swift build --build-tests --enable-all-traits --show-bin-path)/Modules
for module in EndpointKit EndpointKitTesting; do
    swift symbolgraph-extract -module-name "$module" -I "$modules" -target "$(uname -m)-unknown-linux-gnu" \
        -minimum-access-level public -output-dir "$dumped"
done
if [ ! -f "$dumped/EndpointKit.symbols.json" ]; then
    echo "check-docs: no symbol graph for EndpointKit was written" >&2
    exit 1
fi
# Only the library's own graphs: the catalog documents EndpointKit.
mkdir -p "$graphs/catalog"
cp "$dumped"/EndpointKit.symbols.json "$dumped"/EndpointKit@*.symbols.json "$graphs/catalog"/
docc convert Sources/EndpointKit/EndpointKit.docc --additional-symbol-graph-dir "$graphs/catalog" \
    --fallback-display-name EndpointKit --fallback-bundle-identifier org.endpointkit.EndpointKit \
    --output-path "$out" --warnings-as-errors

# The public API is on record in API/: a change to it that the listing does not show fails, so that every
# change is seen in review (and has its CHANGELOG line). UPDATE_API=1 writes the listing anew.
for module in EndpointKit EndpointKitTesting; do
    listing="API/$module.txt"
    scripts/api-listing.py "$dumped" "$module" > "$out/$module.api"
    if [ "${UPDATE_API:-0}" = 1 ]; then
        cp "$out/$module.api" "$listing"
    elif ! diff -u "$listing" "$out/$module.api" > "$out/$module.diff"; then
        echo "check-docs: the public API of $module changed, but $listing does not say so:" >&2
        head -40 "$out/$module.diff" >&2
        echo "check-docs: if the change is meant, run UPDATE_API=1 scripts/check-docs.sh and commit $listing" >&2
        exit 1
    fi
done
echo "check-docs: the public API matches API/EndpointKit.txt and API/EndpointKitTesting.txt"

# The pipeline article's hop list must stay true: at most 8 hops, each naming a file that exists and a function
# defined in it, the body of each calling the next hop's function (a call to a transport on a transport: a file
# that called its own `send` elsewhere would pass a file-wide search with the transport's call deleted).
python3 - <<'PY'
import re, sys, pathlib
article = pathlib.Path("Sources/EndpointKit/EndpointKit.docc/Articles/TheRequestPipeline.md").read_text()
section = article.split("## The path of one call, hop by hop", 1)[1].split("`client.stream(for:)`", 1)[0]
hops = re.findall(r"^(\d+)\. `([^`]+\.swift)`: (?:``|`)([A-Za-z./]+)\(", section, re.M)
problems = []
if not 0 < len(hops) <= 8:
    problems.append(f"{len(hops)} hops listed, not 1 to 8")
names = []
for number, file, symbol in hops:
    path = pathlib.Path("Sources/EndpointKit") / file
    name = symbol.split("/")[-1].split(".")[-1]
    names.append((number, path, name))
    if not path.exists():
        problems.append(f"hop {number}: {file} does not exist")
    elif not re.search(rf"func {re.escape(name)}\b", path.read_text()):
        problems.append(f"hop {number}: {file} defines no func {name}")
def bodies(text, name):
    """The bodies of every `func name` in `text`, from its first brace to the one that closes it."""
    for match in re.finditer(rf"func {re.escape(name)}\b", text):
        start = text.find("{", match.end())
        depth, index = 0, start
        while start >= 0 and index < len(text):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                yield text[start:index + 1]
                break
            index += 1
for (number, path, name), (_, following_path, following) in zip(names, names[1:]):
    call = (rf"\btransport\.{re.escape(following)}\(" if following_path.parent.name == "Transport"
            else rf"(?<!func )\b{re.escape(following)}\(")
    if path.exists() and not any(re.search(call, body) for body in bodies(path.read_text(), name)):
        problems.append(f"hop {number}: {name} in {path.name} never calls {following}(, the next hop")
if problems:
    print("check-docs: the pipeline article's hop list is not true:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"check-docs: the pipeline article's {len(hops)} hops are true")
PY
