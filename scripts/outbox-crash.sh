#!/usr/bin/env bash
# The outbox's crash proof at full size: 10,000 writes over 50 groups, killed with SIGKILL at 1,000 points and
# restarted each time (CI runs 500 writes and 50 kills). Starts and stops its own test servers.
#
#   scripts/outbox-crash.sh [SEED]       (OUTBOX_CRASH_WRITES and OUTBOX_CRASH_KILLS override the size)
set -euo pipefail
cd "$(dirname "$0")/.."
state="$(mktemp -d)"
trap 'scripts/test-servers.sh stop "$state" >/dev/null 2>&1 || true; rm -rf "$state"' EXIT
swift build --build-tests --enable-all-traits >/dev/null
scripts/test-servers.sh start "$state" >/dev/null
# shellcheck disable=SC1091
source "$state/env"
export OUTBOX_CRASH_WRITES="${OUTBOX_CRASH_WRITES:-10000}"
export OUTBOX_CRASH_KILLS="${OUTBOX_CRASH_KILLS:-1000}"
if [ $# -gt 0 ]; then export OUTBOX_CRASH_SEED="$1"; fi
scripts/with-test-ca.sh "$ENDPOINTKIT_TEST_CA" swift test --skip-build --enable-all-traits --filter OutboxCrashIntegrationTests 2>&1 \
    | grep -E "outbox crash proof|✔|✘|Expectation"
