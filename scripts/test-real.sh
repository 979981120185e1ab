#!/usr/bin/env bash
# Real-cluster tier (`npx deno task test:real`): builds etcd, kube-apiserver and kube-controller-manager from the Go
# module proxy once (scripts/k8s-bin.sh, cached under ~/.cache/kubeop), then runs tests/real/ against them.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache
export NO_COLOR=1
export PATH="$PWD/node_modules/.bin:$PATH"
bin=$(bash scripts/k8s-bin.sh) || { echo "real-cluster tier: building the control plane failed" >&2; exit 1; }
export KUBEOP_K8S_BIN="$bin"
deno test --allow-all tests/real/ "$@" 2>&1 | tee .cache/test-real-output.txt
exit "${PIPESTATUS[0]}"
