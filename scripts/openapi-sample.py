#!/usr/bin/env python3
"""The generator on a sample of real descriptions from a directory of APIs laid out as APIs.guru's
openapi-directory is (APIs/PROVIDER[/SERVICE]/VERSION/openapi.yaml).

    scripts/openapi-sample.py draw ROOT --seed S --count N --out LIST
        Draws N APIs with the seed, one version of each (the one drawn with the same seed), among the OpenAPI 3
        descriptions under ROOT, and writes their paths to LIST, with the seed and the rule in its header.

    scripts/openapi-sample.py run ROOT LIST [--present-only] [--jobs J]
        Generates a module from each description LIST names (ROOT/PATH, or ROOT/PATH.gz), then compiles it against
        EndpointKit (a debug build with every trait on: ENDPOINTKIT_BIN, or `swift build --show-bin-path`). Prints
        one line per description and the totals: operations generated and left out (each left-out reason with its
        count), modules that built, and warnings. Exits 1 when fewer than 99 % of the operations are generated, or
        when a module does not build or builds with a warning. --present-only runs the entries whose file is under
        ROOT and says how many it skipped (the committed slice that CI runs); without it a missing file fails.
"""
import argparse
import collections
import concurrent.futures
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

GENERATED = re.compile(r"(\d+) operations generated, (\d+) not generated")


def descriptions(root):
    """Every OpenAPI 3 description under ROOT/APIs, grouped by API (the path above its version folder)."""
    apis = collections.defaultdict(list)
    for folder, _, files in os.walk(os.path.join(root, "APIs")):
        for name in files:
            if name in ("openapi.yaml", "openapi.yaml.gz"):
                path = os.path.relpath(os.path.join(folder, name), root).removesuffix(".gz")
                apis[os.path.dirname(os.path.dirname(path))].append(path)
    return apis


def draw(arguments):
    apis = descriptions(arguments.root)
    generator = random.Random(arguments.seed)
    names = sorted(apis)
    if len(names) < arguments.count:
        sys.exit(f"openapi sample: only {len(names)} APIs under {arguments.root}, fewer than {arguments.count}")
    chosen = sorted(generator.sample(names, arguments.count))
    with open(arguments.out, "w") as out:
        out.write(f"# {arguments.count} of the {len(names)} APIs with an OpenAPI 3 description under APIs/ of an\n")
        out.write("# APIs.guru-style directory, drawn by scripts/openapi-sample.py draw with\n")
        out.write(f"# --seed {arguments.seed} (Python's random.Random: sample() of the sorted API folders, then\n")
        out.write("# choice() of each one's sorted versions). The files themselves are not committed.\n")
        if arguments.source:
            out.write(f"# Drawn from: {arguments.source}\n")
        for name in chosen:
            out.write(generator.choice(sorted(apis[name])) + "\n")
    print(f"openapi sample: {arguments.count} of {len(names)} APIs written to {arguments.out}")


def listed(path):
    with open(path) as lines:
        return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def module_name(path):
    words = re.split(r"[^A-Za-z0-9]+", os.path.dirname(path).removeprefix("APIs/"))
    return "Sample" + "".join(word[:1].upper() + word[1:] for word in words if word)


def unpacked(root, path, work):
    plain = os.path.join(root, path)
    if os.path.exists(plain):
        return plain
    target = os.path.join(work, "description.yaml")
    with gzip.open(plain + ".gz", "rb") as source, open(target, "wb") as out:
        shutil.copyfileobj(source, out)
    return target


def one(root, path, bin_path, modules):
    """Generates and compiles the module of one description; returns what a report line needs."""
    work = tempfile.mkdtemp(prefix="openapi-sample-")
    try:
        result = {"path": path, "generated": 0, "left": 0, "reasons": [], "built": False, "warnings": []}
        started = time.monotonic()
        tool = subprocess.run(
            [os.path.join(bin_path, "endpointkit-openapi"), unpacked(root, path, work), work + "/out",
             "--allow-left-out"],
            capture_output=True, text=True)
        result["seconds_generate"] = time.monotonic() - started
        counts = GENERATED.search(tool.stdout)
        if counts:
            result["generated"], result["left"] = int(counts.group(1)), int(counts.group(2))
        result["reasons"] = [line.removeprefix("endpointkit-openapi: ") for line in tool.stderr.splitlines()
                             if line.strip()]
        if tool.returncode != 0 or not counts:
            result["error"] = "the generator failed: " + (tool.stderr.strip().splitlines() or ["(no output)"])[-1]
            return result
        sources = sorted(os.path.join(work, "out", name) for name in os.listdir(work + "/out")
                         if name.endswith(".swift"))
        started = time.monotonic()
        build = subprocess.run(
            ["swiftc", "-swift-version", "6", "-parse-as-library", "-wmo", "-c", "-module-name", module_name(path),
             "-I", modules, *sources, "-o", os.path.join(work, "module.o")],
            capture_output=True, text=True)
        result["seconds_build"] = time.monotonic() - started
        result["built"] = build.returncode == 0
        output = build.stdout + build.stderr
        result["warnings"] = [line for line in output.splitlines() if ": warning:" in line]
        if not result["built"]:
            errors = [line for line in output.splitlines() if ": error:" in line]
            result["error"] = f"{len(errors)} build errors, the first: " + (errors or ["(none printed)"])[0]
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def binaries():
    bin_path = os.environ.get("ENDPOINTKIT_BIN")
    if not bin_path:
        subprocess.run(["swift", "build", "--enable-all-traits", "--product", "endpointkit-openapi"], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["swift", "build", "--enable-all-traits", "--target", "EndpointKit"], check=True,
                       stdout=subprocess.DEVNULL)
        bin_path = subprocess.run(["swift", "build", "--enable-all-traits", "--show-bin-path"], check=True,
                                  capture_output=True, text=True).stdout.strip()
    modules = os.path.join(bin_path, "Modules")
    return bin_path, modules if os.path.isdir(modules) else bin_path


def report(results, skipped):
    generated = sum(result["generated"] for result in results)
    left = sum(result["left"] for result in results)
    reasons = collections.Counter()
    for result in results:
        state = "built" if result["built"] else "NOT BUILT"
        if result["warnings"]:
            state += f", {len(result['warnings'])} WARNINGS"
        print(f"{result['path']}: {result['generated']} generated, {result['left']} left out, {state}"
              f" ({result.get('seconds_generate', 0):.1f} s generating, {result.get('seconds_build', 0):.1f} s"
              " building)")
        for line in result["reasons"]:
            print(f"    {line}")
            if result["left"]:
                reasons[re.sub(r"\d+", "N", line)] += 1
        for line in result["warnings"][:3] + ([result["error"]] if "error" in result else []):
            print(f"    {line}")
    total = generated + left
    share = generated / total if total else 0
    built = sum(result["built"] for result in results)
    warnings = sum(len(result["warnings"]) for result in results)
    print(f"openapi sample: {len(results)} descriptions ({skipped} listed but not present, skipped); "
          f"{generated} of {total} operations generated ({share:.2%}), {left} left out; "
          f"{built} of {len(results)} modules built, {warnings} warnings")
    return share >= 0.99 and built == len(results) and warnings == 0


def run(arguments):
    paths = listed(arguments.list)
    present = [path for path in paths
               if os.path.exists(os.path.join(arguments.root, path))
               or os.path.exists(os.path.join(arguments.root, path + ".gz"))]
    if not arguments.present_only and len(present) < len(paths):
        missing = sorted(set(paths) - set(present))
        sys.exit(f"openapi sample: {len(missing)} listed descriptions are not under {arguments.root}: {missing[:3]}")
    if not present:
        sys.exit(f"openapi sample: none of the listed descriptions is under {arguments.root}")
    bin_path, modules = binaries()
    with concurrent.futures.ThreadPoolExecutor(arguments.jobs) as pool:
        results = list(pool.map(lambda path: one(arguments.root, path, bin_path, modules), present))
    sys.exit(0 if report(results, len(paths) - len(present)) else 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    drawing = commands.add_parser("draw")
    drawing.add_argument("root")
    drawing.add_argument("--seed", type=int, required=True)
    drawing.add_argument("--count", type=int, required=True)
    drawing.add_argument("--out", required=True)
    drawing.add_argument("--source", help="where ROOT came from, written into the list's header")
    running = commands.add_parser("run")
    running.add_argument("root")
    running.add_argument("list")
    running.add_argument("--present-only", action="store_true")
    running.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args()
    (draw if arguments.command == "draw" else run)(arguments)


if __name__ == "__main__":
    main()
