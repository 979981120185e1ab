#!/usr/bin/env bash
# The README's test command (`npx deno task test`) runs this: static checks, the real clients the kubectl suite
# needs (cached), then every deno test file except the real-cluster tier (tests/real/, see scripts/test-real.sh), and
# (--doc) every JSDoc @example and every TypeScript block of README.md, docs/ and the other markdown files.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache
export NO_COLOR=1
export PATH="$PWD/node_modules/.bin:$PATH"
status=0
deno fmt --check || status=1
deno lint || status=1
deno check main.ts bench/*.ts || status=1
bash scripts/clients.sh || echo "warning: could not fetch kubectl 1.35 / helm; their tests will be skipped" >&2
deno test --doc --allow-all --parallel --ignore=tests/real,.cache,node_modules,dist,.kubeop "$@" 2>&1 | tee .cache/test-output.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
