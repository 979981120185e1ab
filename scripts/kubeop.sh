#!/usr/bin/env bash
# `deno task dev|run|crds|apiserver` run the CLI through this script: inside `deno task`, a bare `deno` would resolve to
# node_modules/.bin/deno and be run as a JavaScript file (the npm package links its native binary there), so the
# binary is found on PATH by bash instead.
cd "$(dirname "$0")/.." || exit 1
export PATH="$PWD/node_modules/.bin:$PATH"
exec deno run --allow-all main.ts "$@"
