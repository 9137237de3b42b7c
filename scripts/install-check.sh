#!/usr/bin/env bash
# Installs EndpointKit the way a new user does, by URL, and makes one call with each set of traits: a bare clone of
# this checkout's HEAD is tagged with the CHANGELOG's version and served as file://; four packages depend on it with
# `from:` and no trait, AsyncHTTPClient, Observability, or both; each builds and calls httpbin on loopback. With no
# trait, the package must resolve nothing but EndpointKit; a fifth, with Postgres, must resolve postgres-nio's graph.
#   scripts/install-check.sh HTTPBIN_URL [SCRATCH]
# The two packages that need SwiftNIO are built in SCRATCH (a folder of their own unless given). scripts/test.sh
# passes its own build's .build, once it is done with it: SwiftNIO there is already built with the same flags, at
# the same version from the same URL, so it is not compiled again; EndpointKit is, from the bare clone.
set -euo pipefail
cd "$(dirname "$0")/.."
httpbin=${1:?usage: scripts/install-check.sh HTTPBIN_URL}
version=$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' CHANGELOG.md | head -1)
work=$(mktemp -d "${TMPDIR:-/tmp}/endpointkit-install.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

git clone --quiet --bare . "$work/endpointkit.git"
git -C "$work/endpointkit.git" tag "$version" HEAD

scratch=${2:-$work/scratch-nio}
# manifest NAME TRAITS PRODUCTS: the folder and Package.swift of a package NAME whose App depends on PRODUCTS of the
# bare clone, with TRAITS; with none, the dependency names no trait, as a new user's does (the default traits).
manifest() {
    local name=$1 products=$3 traits=""
    [ -z "$2" ] || traits=", traits: [$2]"
    mkdir -p "$work/$name/Sources/App"
    cat >"$work/$name/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "$name",
    platforms: [.macOS(.v13)],
    dependencies: [.package(url: "file://$work/endpointkit.git", from: "$version"$traits)],
    targets: [.executableTarget(name: "App", dependencies: [$products])]
)
EOF
}

# user NAME TRAITS PRODUCTS IMPORTS TRANSPORT: a package of its own that depends on the bare clone, built in
# $scratch and run.
user() {
    local name=$1 traits=$2 products=$3 imports=$4 transport=$5
    manifest "$name" "$traits" "$products"
    cat >"$work/$name/Sources/App/main.swift" <<EOF
import EndpointKit
import Foundation
$imports

struct Echo: Decodable { var url: String }
let client = EndpointClient(environment: ServerEnvironment(baseURL: URL(string: CommandLine.arguments[1])!)$transport)
let echo = try await client.response(for: Endpoint<EndpointKinds.Public, Echo>(path: "get"))
print("$name: \(echo.url)")
EOF
    swift build --package-path "$work/$name" --scratch-path "$scratch" 2>&1 | tail -3
    "$scratch/debug/App" "$httpbin"
}

product() { echo ".product(name: \"$1\", package: \"endpointkit\")"; }
# The two that need SwiftNIO share a scratch folder, so SwiftNIO is built at most once. (A package's name must not
# be a dependency's: one called async-http-client hides the real one.)
user user-ahc '"AsyncHTTPClient"' "$(product EndpointKit), $(product EndpointKitAsyncHTTPClient)" \
    'import EndpointKitAsyncHTTPClient' ', transport: AsyncHTTPClientTransport()'
user user-both '"AsyncHTTPClient", "Observability"' \
    "$(product EndpointKit), $(product EndpointKitAsyncHTTPClient), $(product EndpointKitObservability)" \
    $'import EndpointKitAsyncHTTPClient\nimport EndpointKitObservability' \
    ', transport: AsyncHTTPClientTransport(), middleware: [Observability()]'
scratch=$work/scratch-small
user user-none '' "$(product EndpointKit)" '' ''
user user-observability '"Observability"' "$(product EndpointKit), $(product EndpointKitObservability)" \
    'import EndpointKitObservability' ', middleware: [Observability()]'
# The PostgreSQL outbox's trait resolves postgres-nio's graph. Resolved, not built: a first build of that graph
# takes minutes on 2 cores, and the adapter is built, tested and proven by scripts/test.sh already.
manifest user-postgres '"Postgres"' "$(product EndpointKit), $(product EndpointKitPostgres)"
echo 'import EndpointKitPostgres' >"$work/user-postgres/Sources/App/main.swift"
swift package --package-path "$work/user-postgres" --scratch-path "$scratch" resolve >/dev/null
for needed in postgres-nio swift-service-lifecycle; do
    if ! grep -q "\"identity\" : \"$needed\"" "$work/user-postgres/Package.resolved"; then
        echo "install check: with the Postgres trait the package did not resolve $needed" >&2
        exit 1
    fi
done
echo "install check: with the Postgres trait it resolves postgres-nio's graph"

# With the traits off, each adapter's type, in every form the docs show it, fails with the message that names the
# trait and the line to add (a stand-in that conformed to nothing gave "does not conform to expected type" instead).
manifest user-off '' "$(product EndpointKit), $(product EndpointKitAsyncHTTPClient), \
    $(product EndpointKitObservability), $(product EndpointKitPostgres)"
forms=(
    'let transport = AsyncHTTPClientTransport()'
    'let client = EndpointClient(environment: environment, transport: AsyncHTTPClientTransport())'
    'let middleware = Observability()'
    'let client = EndpointClient(environment: environment, middleware: [Observability()])'
    'let outbox: PostgresOutbox<EndpointKinds.Public>? = nil'
    'let limiter = RateLimiter(RateLimit(100, per: .seconds(1)), key: "api", storage: PostgresRateLimits())'
    'let client = EndpointClient(environment: environment, cache: HTTPCache(storage: PostgresCacheStorage()))'
)
for index in "${!forms[@]}"; do
    {
        printf 'import EndpointKit\nimport EndpointKitAsyncHTTPClient\nimport EndpointKitObservability\n'
        printf 'import EndpointKitPostgres\n\n'
        printf 'func form%s(_ environment: ServerEnvironment) {\n    %s\n}\n' "$index" "${forms[$index]}"
    } >"$work/user-off/Sources/App/Form$index.swift"
done
echo 'print("unreachable")' >"$work/user-off/Sources/App/main.swift"
if swift build --package-path "$work/user-off" --scratch-path "$scratch" >"$work/user-off.log" 2>&1; then
    echo "install check: with the traits off, the adapters' types built" >&2
    exit 1
fi
for index in "${!forms[@]}"; do
    pattern="Form$index.swift:[0-9]+:[0-9]+: error: .*needs EndpointKit's (AsyncHTTPClient|Observability|Postgres) trait: \.package"
    if ! grep -Eq "$pattern" "$work/user-off.log"; then
        echo "install check: with the traits off, '${forms[$index]}' does not say which trait to turn on:" >&2
        grep "Form$index.swift.*error:" "$work/user-off.log" >&2 || tail -20 "$work/user-off.log" >&2
        exit 1
    fi
done
echo "install check: with the traits off, each of ${#forms[@]} forms the docs show names the trait to turn on"

resolved=$(sed -n 's/.*"identity" : "\(.*\)".*/\1/p' "$work/user-none/Package.resolved" | tr '\n' ' ')
if [ "$resolved" != "endpointkit " ]; then
    echo "install check: with default traits the package resolved more than EndpointKit: $resolved" >&2
    exit 1
fi
echo "install check: EndpointKit $version installed by URL with each set of traits; with none, it resolves nothing else"
