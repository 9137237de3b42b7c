#!/usr/bin/env bash
# Proves the compiler enforces each kind's request data: every file in Tests/CompileChecks/pass must
# type-check against the built EndpointKit module, and every file in Tests/CompileChecks/fail must fail with
# the error its first line names (`// expected-error: <extended regex>`). Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$(swift build --show-bin-path)
# Every trait on, as scripts/test.sh builds: another set of traits would rebuild the package.
swift build --enable-all-traits --target EndpointKit >/dev/null
modules="$bin/Modules"
[ -d "$modules" ] || modules="$bin"   # older toolchains put modules beside the products

passed=0
failed=0
typecheck() {
    swiftc -typecheck -swift-version 6 -I "$modules" Tests/CompileChecks/Shared.swift "$1" 2>&1
}

for file in Tests/CompileChecks/pass/*.swift; do
    if output=$(typecheck "$file"); then
        passed=$((passed + 1))
        echo "compile check passed: $file type-checks"
    else
        failed=$((failed + 1))
        echo "compile check FAILED: $file should type-check but did not:"
        echo "$output" | grep 'error:' | head -5
    fi
done

for file in Tests/CompileChecks/fail/*.swift; do
    expected=$(sed -n '1s|^// expected-error: ||p' "$file")
    if [ -z "$expected" ]; then
        failed=$((failed + 1))
        echo "compile check FAILED: $file has no '// expected-error:' first line"
        continue
    fi
    if output=$(typecheck "$file"); then
        failed=$((failed + 1))
        echo "compile check FAILED: $file type-checked, but must fail with: $expected"
    elif echo "$output" | grep 'error:' | grep -Eq "$expected"; then
        passed=$((passed + 1))
        echo "compile check passed: $file is rejected ($expected)"
    else
        failed=$((failed + 1))
        echo "compile check FAILED: $file failed, but not with: $expected"
        echo "$output" | grep 'error:' | head -5
    fi
done

echo "compile checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
