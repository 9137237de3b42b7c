#!/usr/bin/env bash
# The README's test command: sets up everything on a fresh Debian machine, then runs every check.
#   1. formatting (swift format lint --strict); nothing read from outside the repository
#      (scripts/check-self-contained.sh); no function past 60 lines, no unowned task (scripts/shape-check.py)
#   2. one build of every target with every trait on (the core, the adapters, their tests and benchmarks;
#      SwiftNIO built once), failing on any warning in the project's own files
#   3. the compile checks (a private endpoint without its token must not compile; nor a generated one without its
#      operation's credential, scripts/openapi-compile-checks.sh), every Swift code block of the
#      docs type-checked (scripts/check-doc-examples.py), and the DocC catalog with warnings as errors, its symbol
#      graphs read from that build; meanwhile a short run of every fuzz target (Fuzz/) builds and runs beside them
#   4. httpbin, nginx (http, and https with a test CA made for the run), the fault server and PostgreSQL on free
#      loopback ports, then `swift test` with that CA trusted for it alone (the outbox crash proof and the PostgreSQL
#      outbox's fleet proof, then the rate limit's and the HTTP cache's fleet proofs, alone, after the rest),
#      then the servers are stopped by PID
#   5. the per-call cost gate: instructions and heap allocations per call against Benchmarks/Cost/baseline.json
#      (scripts/cost-gate.sh; a release build)
#   6. EndpointKit installed by URL with each set of traits, each making a call (scripts/install-check.sh), in the
#      build folder of step 2, so SwiftNIO is not built again
#   7. the unit suites again under Thread Sanitizer (a build of their own in .build-tsan, default traits, made
#      beside step 5); beside step 5 too, the round trip of the endpoints generated from Linode's and Box's
#      descriptions against fixture servers made from them (scripts/openapi-roundtrip.sh), then the committed slice
#      of the 100-description sample (scripts/openapi-sample.py)
set -euo pipefail
cd "$(dirname "$0")/.."

state=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-test.XXXXXX")
cleanup() {
    [ -z "${fuzzing:-}" ] || kill "$fuzzing" 2>/dev/null || true
    [ -z "${tsan_build:-}" ] || kill "$tsan_build" 2>/dev/null || true
    [ -z "${round_trip:-}" ] || kill "$round_trip" 2>/dev/null || true
    scripts/test-servers.sh stop "$state" || true
    rm -rf "$state"
}
trap cleanup EXIT

echo "== swift format lint"
swift format lint --strict --recursive Package.swift Sources Tests Benchmarks Fuzz \
    Adapters/AsyncHTTPClient/Sources Adapters/AsyncHTTPClient/Tests Adapters/AsyncHTTPClient/Benchmarks \
    Adapters/Observability/Sources Adapters/Observability/Tests Adapters/Observability/Benchmarks \
    Adapters/Observability/OTLPCheck/Package.swift Adapters/Observability/OTLPCheck/Sources \
    Adapters/Postgres/Sources Adapters/Postgres/Tests Generator

echo "== self-contained (no tracked file reads a folder outside the repository)"
scripts/check-self-contained.sh

echo "== shape (no function past 60 lines, no task nobody owns)"
scripts/shape-check.py

echo "== build, every trait on (a warning in the project's own files fails the run)"
# -Xswiftc -warnings-as-errors would reach the dependencies too, whose warnings are theirs: the build's log is read
# instead, for warnings in the project's own files.
swift build --build-tests --enable-all-traits 2>&1 | tee "$state/build.log"
if grep -E "^$PWD/(Sources|Tests|Benchmarks|Fuzz|Adapters|Generator)/.*warning:" "$state/build.log"; then
    echo "the build has warnings in the project's own files" >&2
    exit 1
fi

echo "== fuzzing, a short run of every target, beside the next three checks (scripts/fuzz.sh runs 100,000 each)"
# The fuzz harness is one optimized compile of the library, mostly on one core, as are the checks below it: run
# side by side they keep both cores busy. Its output is shown once it is done.
scripts/fuzz.sh "${FUZZ_RUNS:-3000}" >"$state/fuzz.log" 2>&1 &
fuzzing=$!

echo "== compile checks"
scripts/compile-checks.sh

echo "== compile checks of generated endpoints (each shape of security; Linode and Box)"
scripts/openapi-compile-checks.sh

echo "== doc examples (every Swift block of the README, the articles and the doc comments type-checks)"
scripts/check-doc-examples.py "$(swift build --show-bin-path)/Modules"
scripts/check-doc-examples.py "$(swift build --show-bin-path)/Modules" --adapter

echo "== documentation (DocC, warnings are errors)"
scripts/check-docs.sh

echo "== fuzzing (its output)"
status=0
wait "$fuzzing" || status=$?
fuzzing=
cat "$state/fuzz.log"
if [ "$status" -ne 0 ]; then
    echo "fuzzing failed" >&2
    exit 1
fi

echo "== test servers"
scripts/test-servers.sh start "$state"
# shellcheck disable=SC1091
source "$state/env"

echo "== swift test (the run's test CA trusted for it alone)"
if [ $# -eq 0 ]; then
    # The outbox's crash proof runs alone, after the rest: it keeps both cores busy with processes it kills, which
    # would slow the tests beside it past their bounds.
    # The core's suites, then the adapters' in a run of their own, as when they were packages apart: the
    # adapters' transfers would slow the core's time-limited suites beside them.
    adapters='EndpointKitAsyncHTTPClientTests|EndpointKitObservabilityTests|EndpointKitPostgresTests'
    scripts/with-test-ca.sh "$ENDPOINTKIT_TEST_CA" swift test --skip-build --enable-all-traits \
        --skip "$adapters|OutboxCrashIntegrationTests"
    echo "== the adapters' tests (AsyncHTTPClient, Observability, Postgres)"
    scripts/with-test-ca.sh "$ENDPOINTKIT_TEST_CA" swift test --skip-build --enable-all-traits --filter "$adapters"
    echo "== the outbox's crash proof (500 writes, 50 kills; scripts/outbox-crash.sh runs 10,000 and 1,000)"
    swift test --skip-build --enable-all-traits --filter OutboxCrashIntegrationTests
    echo "== the PostgreSQL outbox's fleet proof (1,000 writes, 20 groups, 4 senders, 20 kills, 1 restart of"
    echo "   PostgreSQL, 5 terminated connections; scripts/outbox-fleet.py proof runs 10,000 writes and 333 faults)"
    ENDPOINTKIT_BIN="$(swift build --enable-all-traits --show-bin-path)" python3 scripts/outbox-fleet.py proof \
        --writes 1000 --groups 20 --kills 20 --restarts 1 --terminates 5 --seed 20261129 --pace 0.3
    echo "== the fleet rate limit's proof (4 phases of 6 s: 4 and 8 instances, then PostgreSQL restarted and killed"
    echo "   under each policy; scripts/ratelimit-fleet.py proof runs 60 s per phase with a 50 ms margin)"
    # A 100 ms margin: while PostgreSQL restarts, a call on its way from the limiter to the upstream here took up to
    # 53 ms (the proof's "release to arrival"), more than half of 50 ms, and the upstream once counted 51 against 50.
    ENDPOINTKIT_BIN="$(swift build --enable-all-traits --show-bin-path)" python3 scripts/ratelimit-fleet.py proof \
        --seconds 6 --limit 50 --minimum-use 0 --margin-ms 100
    echo "== the fleet HTTP cache's proof (4 instances, 50 resources x 2 tokens, 2 passes, then a restarted instance;"
    echo "   scripts/cache-fleet.py proof runs 200 resources and 3 passes)"
    ENDPOINTKIT_BIN="$(swift build --enable-all-traits --show-bin-path)" python3 scripts/cache-fleet.py proof \
        --resources 50 --passes 2
else
    scripts/with-test-ca.sh "$ENDPOINTKIT_TEST_CA" swift test --skip-build --enable-all-traits "$@"
fi

if [ $# -eq 0 ]; then
    # The sanitizer's build (a folder of its own) runs beside the cost gate: the gate's callgrind and DHAT runs
    # use one core (valgrind runs a program's threads one at a time) and count instructions and allocations. Load
    # still moves a count a little (the event loops turn more or less often while an answer is awaited: over
    # AsyncHTTPClient a run beside other work counted 1.7 % more than a quiet one), so what runs beside the gate
    # runs at the lowest priority, and the gate's runs keep a core.
    echo "== the sanitizer's build, beside the cost gate"
    nice -n 19 swift build --build-tests --scratch-path .build-tsan --sanitize=thread >"$state/tsan-build.log" 2>&1 &
    tsan_build=$!
    # So does the generated endpoints' round trip: every operation of Linode's and Box's descriptions against a
    # fixture server made from each (seed 1). It reads step 2's build without building (the gate builds in its
    # folder), and is awaited before the install check builds there.
    # Then the committed slice of the 100-description sample: each generates every operation and builds with no
    # warning (scripts/openapi-sample.py; Generator/TestData/openapi-sample/README.md).
    echo "== the generated endpoints' round trip (Linode, Box) and the sample's slice, beside the cost gate"
    bin=$(swift build --enable-all-traits --show-bin-path)
    nice -n 19 bash -c '
        ENDPOINTKIT_BIN=$1 scripts/openapi-roundtrip.sh Generator/TestData/openapi/linode-4.5.0.yaml.gz 1 \
            && ENDPOINTKIT_BIN=$1 scripts/openapi-roundtrip.sh Generator/TestData/openapi/box-2.0.yaml.gz 1 \
            && ENDPOINTKIT_BIN=$1 python3 scripts/openapi-sample.py run Generator/TestData/openapi-sample \
                Generator/TestData/openapi-sample.txt --present-only --jobs 1
    ' round-trip "$bin" >"$state/round-trip.log" 2>&1 &
    round_trip=$!

    echo "== the per-call cost gate (instructions and allocations per call against Benchmarks/Cost/baseline.json)"
    scripts/cost-gate.sh

    echo "== the generated endpoints' round trip (its output)"
    status=0
    wait "$round_trip" || status=$?
    round_trip=
    grep -v "^round trip: .*: response decoded$" "$state/round-trip.log" || true
    if [ "$status" -ne 0 ]; then
        echo "the generated endpoints' round trip failed" >&2
        exit 1
    fi

    echo "== installed by URL, as a new user does: no trait, AsyncHTTPClient, Observability, both"
    # In this build's folder, which nothing after this step uses: SwiftNIO there is built already.
    scripts/install-check.sh "$ENDPOINTKIT_HTTPBIN_URL" "$PWD/.build"

    echo "== swift test, unit suites under Thread Sanitizer"
    if ! wait "$tsan_build"; then
        cat "$state/tsan-build.log"
        echo "the sanitizer's build failed" >&2
        exit 1
    fi
    # The property tests are left out: each walks one pure transition function on one thread, which the race
    # detector has nothing to say about, and it would run their 1.4 million events ten times slower.
    swift test --skip-build --scratch-path .build-tsan --sanitize=thread --filter EndpointKitTests --skip PropertyTests 2>&1 \
        | tee "$state/tsan.log"
    if grep -q "WARNING: ThreadSanitizer" "$state/tsan.log"; then
        echo "Thread Sanitizer reported a data race" >&2
        exit 1
    fi
fi
