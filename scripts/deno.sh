#!/usr/bin/env bash
# Runs `deno <args>` with the npm package's binary first on PATH (see scripts/kubeop.sh for why tasks need this).
cd "$(dirname "$0")/.." || exit 1
export PATH="$PWD/node_modules/.bin:$PATH"
exec deno "$@"
