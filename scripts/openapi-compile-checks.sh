#!/usr/bin/env bash
# Proves that a generated endpoint's security is checked by the compiler. It generates a module from
# Generator/Tests/EndpointKitOpenAPITests/Fixtures/security-shapes.yaml (one operation per shape of security)
# and type-checks it with each file of Generator/CompileChecks: every file in pass/ must type-check, and every
# file in fail/ must fail with the error its first line names (`// expected-error: <extended regex>`). Then it
# does the same with the modules of real descriptions (Generator/TestData/openapi), for a few of their operations. Then the
# demo's generated sources are written again through the command plugin (`swift package generate-endpoints`) and
# must be the committed ones. Then the fixture's generated code is built and run (Generator/RuntimeChecks), and the
# reserved-names fixture's (Generator/RuntimeChecks/ReservedNames).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(swift build --enable-all-traits --show-bin-path)
modules="$bin/Modules"
[ -d "$modules" ] || modules="$bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scripts/openapi-generate.sh Generator/Tests/EndpointKitOpenAPITests/Fixtures/security-shapes.yaml "$work/shapes" \
    Generator/Tests/EndpointKitOpenAPITests/Fixtures/security-shapes-overlay.yaml --allow-left-out 2>/dev/null

passed=0
failed=0
typecheck() { # FOLDER FILE...
    local folder=$1
    shift
    swiftc -typecheck -swift-version 6 -I "$modules" "$folder"/*.swift Generator/CompileChecks/Shared.swift "$@" 2>&1
}
check() { # FOLDER CASE-FILE
    local folder=$1 file=$2 expected output
    case "$file" in
    */pass/*)
        if output=$(typecheck "$folder" "$file"); then
            passed=$((passed + 1))
            echo "openapi compile check passed: $file type-checks"
        else
            failed=$((failed + 1))
            echo "openapi compile check FAILED: $file should type-check but did not:"
            echo "$output" | grep 'error:' | head -5
        fi
        ;;
    *)
        expected=$(sed -n '1s|^// expected-error: ||p' "$file")
        if [ -z "$expected" ]; then
            failed=$((failed + 1))
            echo "openapi compile check FAILED: $file has no '// expected-error:' first line"
        elif output=$(typecheck "$folder" "$file"); then
            failed=$((failed + 1))
            echo "openapi compile check FAILED: $file type-checked, but must fail with: $expected"
        elif echo "$output" | grep 'error:' | grep -Eq "$expected"; then
            passed=$((passed + 1))
            echo "openapi compile check passed: $file is rejected ($expected)"
        else
            failed=$((failed + 1))
            echo "openapi compile check FAILED: $file failed, but not with: $expected"
            echo "$output" | grep 'error:' | head -5
        fi
        ;;
    esac
}

for file in Generator/CompileChecks/pass/*.swift Generator/CompileChecks/fail/*.swift; do check "$work/shapes" "$file"; done

# The examples of the article and the README that call generated endpoints: each block marked as type-checked
# here is top-level code, with EndpointKit and Foundation imported.
article=Sources/EndpointKit/EndpointKit.docc/Articles/GeneratingEndpointsFromOpenAPI.md
count=0
while IFS= read -r -d '' block; do
    count=$((count + 1))
    mkdir -p "$work/article/pass/$count"
    printf 'import EndpointKit\nimport Foundation\n%s\n' "$block" >"$work/article/pass/$count/main.swift"
    check "$work/shapes" "$work/article/pass/$count/main.swift"
done < <(python3 - "$article" README.md <<'PY'
import sys
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines):
        if line.strip() == "```swift" and i > 0 and "type-checked against a generated module" in lines[i - 1]:
            end = lines.index("```", i + 1)
            sys.stdout.write("\n".join(lines[i + 1:end]) + "\0")
PY
)
if [ "$count" -eq 0 ]; then
    failed=$((failed + 1))
    echo "openapi compile check FAILED: no example of $article is marked as type-checked against a generated module"
fi
for spec in linode-4.5.0 box-2.0; do
    scripts/openapi-generate.sh "Generator/TestData/openapi/$spec.yaml.gz" "$work/$spec" --allow-left-out 2>/dev/null
    for file in Generator/CompileChecks/$spec/pass/*.swift Generator/CompileChecks/$spec/fail/*.swift; do check "$work/$spec" "$file"; done
done

echo "openapi compile checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

# The demo calls endpoints generated from Generator/Demo/demo-api.yaml: the committed sources must be what the
# generator writes from it now. They are written through the package's command plugin, as a user runs it, into a
# folder of the package (where the plugin may write), without a prompt.
plugin_output=.build/openapi-plugin-check
rm -rf "$plugin_output"
swift package --enable-all-traits --allow-writing-to-package-directory generate-endpoints \
    --spec Generator/Demo/demo-api.yaml --output "$plugin_output" >"$work/plugin.log" 2>&1 \
    || { cat "$work/plugin.log" >&2; echo "openapi compile check FAILED: the generate-endpoints plugin failed" >&2; exit 1; }
mv "$plugin_output" "$work/demo"
if ! diff -r "$work/demo" Sources/EndpointKitDemo/Generated; then
    echo "openapi compile check FAILED: Sources/EndpointKitDemo/Generated is not what Generator/Demo/demo-api.yaml" \
        "generates; run scripts/openapi-generate.sh Generator/Demo/demo-api.yaml Sources/EndpointKitDemo/Generated" >&2
    exit 1
fi
echo "openapi compile check passed: the demo's generated endpoints are current (written by the command plugin)"

# Then the fixture's generated code runs (Generator/RuntimeChecks/main.swift): what each factory sends, what the
# models decode, how documented errors are read, and what is redacted. It links the objects of EndpointKit's own
# sources from the build above (by name, so that objects of files since removed are left out).
objects=()
while IFS= read -r source; do
    objects+=("$bin/EndpointKit.build/$(basename "$source").o")
done < <(find Sources/EndpointKit -name '*.swift' | sort)
swiftc -swift-version 6 -module-name ShapesRuntime -I "$modules" "$work"/shapes/*.swift \
    Generator/RuntimeChecks/main.swift "${objects[@]}" -o "$work/runtime-checks"
"$work/runtime-checks"

# Last, every Swift keyword and reserved name in every place a name goes (a model, a member, a parameter, an enum
# value, an operation, a security scheme; names apart only by case or punctuation): the module generated from
# the reserved-names fixture must build with no warning and run (Generator/RuntimeChecks/ReservedNames).
scripts/openapi-generate.sh Generator/Tests/EndpointKitOpenAPITests/Fixtures/reserved-names.yaml "$work/reserved" \
    >/dev/null
swiftc -swift-version 6 -module-name ReservedRuntime -I "$modules" "$work"/reserved/*.swift \
    Generator/RuntimeChecks/ReservedNames/main.swift "${objects[@]}" -o "$work/reserved-checks" 2>"$work/reserved.log" \
    || { cat "$work/reserved.log" >&2; echo "openapi compile check FAILED: the reserved-names module does not build" >&2; exit 1; }
if grep -E "warning:" "$work/reserved.log"; then
    echo "openapi compile check FAILED: the reserved-names module builds with warnings" >&2
    exit 1
fi
"$work/reserved-checks"
