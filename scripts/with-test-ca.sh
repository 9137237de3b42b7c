#!/usr/bin/env bash
# Runs a command with a test CA trusted by the system's trust store, for that command only.
#
#   scripts/with-test-ca.sh CA_CERT COMMAND [ARGUMENTS...]
#
# Linux URLSession trusts only the system's CA bundle (/etc/ssl/certs/ca-certificates.crt): SSL_CERT_FILE and
# CURL_CA_BUNDLE are ignored. So the command runs in a private mount namespace in which a copy of that bundle
# with CA_CERT appended is mounted over it; nothing outside the command sees the test CA. Where namespaces are
# not allowed (not root, or a restricted container), the CA is added with update-ca-certificates and removed
# again when the command ends; without root either, the command runs unchanged and tests that need the CA fail.
set -euo pipefail

ca=${1:?usage: with-test-ca.sh CA_CERT COMMAND [ARGUMENTS...]}
shift
system_bundle=/etc/ssl/certs/ca-certificates.crt
bundle=$(mktemp "${TMPDIR:-/tmp}/endpointkit-ca-bundle.XXXXXX")
trap 'rm -f "$bundle"' EXIT
cat "$system_bundle" "$ca" >"$bundle"
chmod 644 "$bundle"

if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
    unshare --mount --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' \
        sh "$bundle" "$system_bundle" "$@"
elif [ "$(id -u)" = 0 ] && command -v update-ca-certificates >/dev/null; then
    installed=/usr/local/share/ca-certificates/endpointkit-test-ca-$$.crt
    cp "$ca" "$installed"
    trap 'rm -f "$bundle" "$installed"; update-ca-certificates --fresh >/dev/null 2>&1 || true' EXIT
    update-ca-certificates >/dev/null
    "$@"
else
    echo "with-test-ca: cannot trust $ca for this run (not root); tests that need it will fail" >&2
    "$@"
fi
