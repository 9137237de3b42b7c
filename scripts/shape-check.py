#!/usr/bin/env python3
"""The shape check: lists each function, initializer or deinitializer in the library's Swift sources that runs
past 60 lines, and each `Task {` (or `Task.detached {`) whose handle nobody keeps. Exits non-zero when it lists
anything that CONTRIBUTING.md does not name as an exception (a line `- `name`: reason` under "Functions past 60
lines").

    scripts/shape-check.py [FILE...]    default: Sources/, Adapters/*/Sources/, Generator/Sources/
"""
import pathlib
import re
import sys

LIMIT = 60
ROOT = pathlib.Path(__file__).resolve().parent.parent
DECLARATION = re.compile(r"\b(?:func\s+(?P<func>[A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)|(?P<init>init)[?!]?\s*[(<]|(?P<deinit>deinit)\b)")
DROPPED_TASK = re.compile(r"^(?:_\s*=\s*)?Task(?:\.detached)?\s*(?:\([^)]*\))?\s*\{")


def stripped(text):
    """The source with comments and string literals blanked out (newlines kept), so that braces can be counted."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def long_bodies(lines):
    """(line, name, length) for each declaration whose braced body runs past LIMIT lines."""
    found = []
    for number, line in enumerate(lines):
        match = DECLARATION.search(line)
        if not match or line.lstrip().startswith(("case ", "protocol ")):
            continue
        name = match.group("func") or match.group("init") or match.group("deinit")
        depth, start = 0, None
        for end in range(number, min(len(lines), number + 2000)):
            for character in lines[end]:
                if character == "{":
                    depth += 1
                    start = end if start is None else start
                elif character == "}":
                    depth -= 1
            if start is not None and depth <= 0:
                length = end - start - 1
                if length > LIMIT:
                    found.append((number + 1, name, length))
                break
            if start is None and end > number + 15:  # a requirement without a body
                break
    return found


def shown(path):
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def problems(path, allowed):
    lines = stripped(path.read_text(encoding="utf-8")).split("\n")
    for number, name, length in long_bodies(lines):
        if name not in allowed:
            yield f"{shown(path)}:{number}: {name} runs {length} lines (past {LIMIT}): give a step a name"
    for number, line in enumerate(lines):
        if DROPPED_TASK.match(line.strip()):
            yield f"{shown(path)}:{number + 1}: a Task nobody keeps: give it an owner that cancels it"


def main():
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = contributing.split("## Functions past 60 lines", 1)[-1].split("\n## ", 1)[0]
    allowed = set(re.findall(r"^- `([A-Za-z_][A-Za-z0-9_]*)`", section, re.MULTILINE))
    if len(sys.argv) > 1:
        files = [pathlib.Path(name).resolve() for name in sys.argv[1:]]
    else:
        folders = [ROOT / "Sources", ROOT / "Generator/Sources", *sorted(ROOT.glob("Adapters/*/Sources"))]
        files = sorted(f for folder in folders for f in folder.rglob("*.swift") if ".docc" not in f.parts[-2])
    found = [problem for path in files for problem in problems(path, allowed)]
    for problem in found:
        print(problem, file=sys.stderr)
    print(f"shape-check: {len(files)} files, {len(found)} problems")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
