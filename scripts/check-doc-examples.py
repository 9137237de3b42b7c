#!/usr/bin/env python3
"""Type-checks every Swift code block the docs show: ```swift blocks in README.md and the DocC articles, and the
indented code in the doc comments of EndpointKit's sources. Each block is compiled as a `main.swift` of its own
against the built modules, first alone, then with Tests/DocExamples/Prelude.swift (the names examples take for
granted: a client, a token, an item's endpoint). A block that is a fragment on purpose (a Package.swift line, an
error the compiler prints) says so on the line before it: `<!-- fragment: why -->` (in a doc comment,
`/// <!-- fragment: why -->`).

    scripts/check-doc-examples.py MODULES_DIR [FILTER]   # FILTER: only blocks whose file contains it
    scripts/check-doc-examples.py MODULES_DIR --adapter

A block that imports the Observability or the PostgreSQL adapter (`import EndpointKitObservability`,
`import EndpointKitPostgres`) is checked by the second form only, as are the doc comments and READMEs of
Adapters/Observability and Adapters/Postgres, each with both imports (and PostgresNIO's and Logging's) added;
MODULES_DIR is then that of a build with every trait on (scripts/test.sh builds so, and runs both forms), and the C
modules under it (SwiftNIO's, for PostgresNIO) are found through their module maps.
"""
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FRAGMENT = re.compile(r"<!--\s*fragment\b")


def markdown_blocks(path):
    lines = path.read_text().split("\n")
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            end = index + 1
            while lines[end].strip() != "```":
                end += 1
            marked = index > 0 and FRAGMENT.search(lines[index - 1])
            yield index + 2, "\n".join(lines[index + 1 : end]), bool(marked)
            index = end
        index += 1


def comment_blocks(path):
    """Indented code in `///` comments: four spaces past the comment's own, after a blank comment line."""
    lines = path.read_text().split("\n")
    code = re.compile(r"^\s*/// {5}")
    blank = re.compile(r"^\s*///\s*$")
    index = 0
    while index < len(lines):
        if code.match(lines[index]) and index > 0 and blank.match(lines[index - 1]):
            start, body = index, []
            while index < len(lines) and (
                code.match(lines[index])
                or (blank.match(lines[index]) and index + 1 < len(lines) and code.match(lines[index + 1]))
            ):
                body.append(code.sub("", lines[index]) if code.match(lines[index]) else "")
                index += 1
            marked = start > 1 and FRAGMENT.search(lines[start - 2])
            yield start + 1, "\n".join(body), bool(marked)
        index += 1


ADAPTER_IMPORT = re.compile(r"^import EndpointKit(Observability|Postgres)\b", re.M)
ADAPTER_FOLDERS = ("Adapters/Observability/", "Adapters/Postgres/")
ADAPTER_HEADER = "import EndpointKitObservability\nimport EndpointKitPostgres\nimport PostgresNIO\nimport Logging\n"


def blocks(only, adapter):
    """The blocks to check: those that need no adapter, or (with `adapter`) only those that need the adapter."""
    documents = [pathlib.Path("README.md")] + sorted(pathlib.Path("Sources/EndpointKit/EndpointKit.docc").rglob("*.md"))
    documents += [pathlib.Path("Adapters/Observability/README.md"), pathlib.Path("Adapters/Postgres/README.md")]
    found = []
    for path in documents:
        for line, text, marked in markdown_blocks(path):
            found.append((str(path), line, text, marked))
    for folder in ["Sources/EndpointKit", "Sources/EndpointKitTesting", "Adapters/Observability/Sources",
                   "Adapters/Postgres/Sources"]:
        for path in sorted(pathlib.Path(folder).rglob("*.swift")):
            if folder == "Sources/EndpointKit" and "EndpointKitTesting" in str(path):
                continue
            for line, text, marked in comment_blocks(path):
                found.append((str(path), line, text, marked))
    for block in found:
        needs_adapter = bool(ADAPTER_IMPORT.search(block[2])) or block[0].startswith(ADAPTER_FOLDERS)
        if needs_adapter == adapter:
            yield block


HEADER = "import EndpointKit\nimport EndpointKitTesting\nimport Foundation\nimport Testing\n#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n"


def typecheck(modules, folder, text, prelude):
    main = folder / "main.swift"
    header = HEADER + (ADAPTER_HEADER if ADAPTER else "")
    main.write_text(header + ("import DocPrelude\n" if prelude else "") + text + "\n")
    search = ["-I", modules] + (["-I", prelude] if prelude else []) + (C_MODULES if ADAPTER else [])
    command = ["swiftc", "-typecheck", "-swift-version", "6", *search, "-module-name", "DocExample", str(main)]
    result = subprocess.run(command, capture_output=True, text=True)
    errors = [line for line in result.stderr.split("\n") if "error:" in line]
    return result.returncode == 0, errors


def check(modules, number, block):
    path, line, text, _ = block
    with tempfile.TemporaryDirectory() as scratch:
        folder = pathlib.Path(scratch)
        alone, _ = typecheck(modules, folder, text, None)
        if alone:
            return None
        with_prelude, errors = typecheck(modules, folder, text, PRELUDE)
        if with_prelude:
            return None
        shown = [re.sub(r"^.*main\.swift:(\d+):\d+: ", lambda m: f"line {int(m.group(1)) - (12 if ADAPTER else 8)}: ", e) for e in errors[:3]]
        return f"{path}:{line}: the example does not type-check:\n    " + "\n    ".join(shown)


PRELUDE = ""
ADAPTER = False
C_MODULES = []


def c_modules(modules):
    """The flags that find the C modules of the build whose modules are in `modules`: each module map in the build
    folder, and each package's public headers."""
    build = pathlib.Path(modules).parent
    flags = []
    for path in sorted(build.glob("*/module.modulemap")):
        flags += ["-Xcc", f"-fmodule-map-file={path}"]
    for include in sorted(build.parent.parent.glob("checkouts/*/Sources/*/include")):
        flags += ["-Xcc", f"-I{include}"]
    return flags


def build_prelude(modules, folder):
    """Compiles Tests/DocExamples/Prelude.swift into the module DocPrelude in `folder`."""
    command = [
        "swiftc", "-emit-module", "-swift-version", "6", "-I", modules, "-module-name", "DocPrelude",
        "-parse-as-library", "-emit-module-path", f"{folder}/DocPrelude.swiftmodule", "Tests/DocExamples/Prelude.swift",
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        print("doc examples: the prelude does not compile:\n" + result.stderr, file=sys.stderr)
        sys.exit(1)


def main():
    global PRELUDE, ADAPTER, C_MODULES
    arguments = [argument for argument in sys.argv[1:] if argument != "--adapter"]
    adapter = "--adapter" in sys.argv[1:]
    ADAPTER = adapter
    modules = arguments[0]
    C_MODULES = c_modules(modules) if adapter else []
    only = arguments[1] if len(arguments) > 1 else ""
    prelude_folder = tempfile.mkdtemp(prefix="doc-prelude-")
    try:
        build_prelude(modules, prelude_folder)
        PRELUDE = prelude_folder
        found = [block for block in blocks(only, adapter) if only in block[0]]
        checked = [block for block in found if not block[3]]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            failures = [f for f in pool.map(lambda item: check(modules, *item), enumerate(checked)) if f]
    finally:
        shutil.rmtree(prelude_folder, ignore_errors=True)
    for failure in failures:
        print(failure)
    print(f"doc examples: {len(checked) - len(failures)} type-check, {len(failures)} do not, "
          f"{len(found) - len(checked)} marked as fragments")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
