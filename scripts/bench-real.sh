#!/usr/bin/env bash
# Real-apiserver benchmarks (`npx deno task bench:real [-- --full|--smoke]`): builds what they need once (the control
# plane through scripts/k8s-bin.sh, the controller-runtime peer and raw writer through bench/real/build_peer.sh, both
# cached under ~/.cache/kubeop), bundles kubeop into dist/kubeop.js, then runs bench/real/main.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1
export PATH="$PWD/node_modules/.bin:$PATH"
bin=$(bash scripts/k8s-bin.sh) || { echo "bench:real: building the control plane failed" >&2; exit 1; }
peer=$(bash bench/real/build_peer.sh) || { echo "bench:real: building the controller-runtime peer failed" >&2; exit 1; }
deno run --allow-all scripts/bundle.ts --output dist/kubeop.js
KUBEOP_K8S_BIN="$bin" KUBEOP_PEER_DIR="$peer" exec deno run --allow-all bench/real/main.ts "$@"
