#!/usr/bin/env bash
# `deno task dev|run|crds|apiserver` run the CLI through this script: inside `deno task`, a bare `deno` would resolve to
# node_modules/.bin/deno and be run as a JavaScript file (the npm package links its native binary there), so the
# binary is found on PATH by bash instead.
cd "$(dirname "$0")/.." || exit 1
export PATH="$PWD/node_modules/.bin:$PATH"
# `run` gets the V8 setting the compile tasks embed (deno.json; docs/performance.md, "Where the RSS goes"): a 1 MiB
# young generation, which keeps the operator's resident memory down for the same CPU.
if [ "${1:-}" = run ]; then
  exec deno run --allow-all --v8-flags=--max-semi-space-size=1 main.ts "$@"
fi
exec deno run --allow-all main.ts "$@"
