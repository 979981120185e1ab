#!/usr/bin/env bash
# Builds (once per source hash, cached) the controller-runtime peer bench/peers/machine-go and the raw client-go
# writer bench/peers/machine-go/cmd/rawwrite, through the Go module proxy. Prints the directory holding both.
#   KUBEOP_PEER_CACHE (default ~/.cache/kubeop/peers). `--check`: print the directory if built, else exit 1.
set -euo pipefail
src="$(cd "$(dirname "$0")/../peers/machine-go" && pwd)"
cache=${KUBEOP_PEER_CACHE:-$HOME/.cache/kubeop/peers}
command -v go >/dev/null || { echo "build_peer: go is not installed" >&2; exit 1; }
hash=$(cd "$src" && find . -name '*.go' -o -name go.mod | sort | xargs cat | sha256sum | cut -c1-16)
out="$cache/machine-go-$hash"
if [ -x "$out/machine-go" ] && [ -x "$out/rawwrite" ]; then
  echo "$out"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then
  exit 1
fi
mkdir -p "$out"
cd "$src"
export GOFLAGS=-mod=mod
go build -trimpath -o "$out/machine-go" . >&2
go build -trimpath -o "$out/rawwrite" ./cmd/rawwrite >&2
echo "$out"
