#!/usr/bin/env bash
# Builds the libFuzzer harness in Fuzz/ and runs every target.
#
#   scripts/fuzz.sh [RUNS] [TARGET...]   RUNS cases per target (default 100000); all targets unless named
#
# The harness is compiled together with EndpointKit's sources (one module, so it can check internal pieces
# too) with `swiftc -sanitize=fuzzer,address`, into .build-fuzz/. Each target starts from its committed corpus
# in Fuzz/Corpus/TARGET (inputs that once broke an invariant, kept as regression cases) and writes what it
# finds to a scratch corpus. A broken invariant stops the run, prints the message and saves the input as
# .build-fuzz/TARGET-crash-* (or -leak-, -oom-, -timeout-); copy it into Fuzz/Corpus/TARGET once it is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-100000}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(path query header multipart curl envelope event-stream header-number cache-headers)

mkdir -p .build-fuzz
binary=.build-fuzz/endpointkit-fuzz
echo "== building the fuzz harness"
# shellcheck disable=SC2046
swiftc -swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -module-name EndpointKit -package-name endpointkit -parse-as-library -O -sanitize=fuzzer,address \
    $(find Sources/EndpointKit -name '*.swift' | sort) $(find Fuzz -name '*.swift' | sort) -o "$binary" \
    2> >(grep -v "ld.gold: warning: Cannot export local symbol '__asan" >&2)

# Swift's own crash handler would hide libFuzzer's report of the failing input.
export SWIFT_BACKTRACE=enable=no
for target in "${targets[@]}"; do
    scratch=.build-fuzz/corpus-$target
    mkdir -p "$scratch" "Fuzz/Corpus/$target"
    rm -f ".build-fuzz/$target-"{crash,leak,oom,timeout}-*
    echo "== $target: $runs cases"
    # Leak checks are off: what they report comes from Foundation and the concurrency runtime (a URLSession's
    # weak references, tasks still winding down at exit), not from code a fuzz case can steer.
    ASAN_OPTIONS=detect_leaks=0 FUZZ_TARGET=$target "$binary" -runs="$runs" -max_len=1024 -print_final_stats=1 -detect_leaks=0 \
        -artifact_prefix=".build-fuzz/$target-" "$scratch" "Fuzz/Corpus/$target" 2>&1 \
        | grep -E "INVARIANT|ERROR|SUMMARY|Done [0-9]+ runs|stat::number_of_executed_units|Fatal error" || true
    if compgen -G ".build-fuzz/$target-*-*" >/dev/null; then
        echo "fuzz: $target failed; the input is in $(compgen -G ".build-fuzz/$target-*-*" | head -1)" >&2
        exit 1
    fi
done
