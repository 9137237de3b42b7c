#!/usr/bin/env bash
# A clone from the project's public home has nothing beside it: no tracked file may read or name a folder outside
# the repository (a sibling folder through `..`, or an absolute path of a machine it was written on). Lists each
# line that does and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

# The patterns are assembled so that this file does not match itself.
sibling='\.\./(shared|\.library)\b'
machine='/work/(main|shared)\b'
kept='\bshared/(openapi|tools|hooks)\b|\b(STYLE|REFERENCES|LINUX-URLSESSION)\.md'
if git grep -nE "$sibling|$machine|$kept" -- . ':!scripts/check-self-contained.sh'; then
    echo "check-self-contained: the lines above read or name a folder outside the repository" >&2
    exit 1
fi
echo "check-self-contained: no tracked file names a folder outside the repository"
