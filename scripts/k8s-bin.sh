#!/usr/bin/env bash
# Builds (once, cached) the real control plane for the real-cluster tier: kube-apiserver and kube-controller-manager
# from k8s.io/kubernetes, and etcd, all through the Go module proxy. Prints the bin directory.
#   KUBEOP_K8S_VERSION (default v1.33.13), KUBEOP_ETCD_VERSION (default v3.5.21), KUBEOP_K8S_BIN_CACHE.
set -euo pipefail
k8s=${KUBEOP_K8S_VERSION:-v1.33.13}
etcd=${KUBEOP_ETCD_VERSION:-v3.5.21}
cache=${KUBEOP_K8S_BIN_CACHE:-$HOME/.cache/kubeop/k8s-bin}
bin="$cache/$k8s"
if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ] && [ -x "$bin/etcd" ]; then
  echo "$bin"
  exit 0
fi
if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ] && [ "${1:-}" != "--force" ]; then
  only_etcd=1
else
  only_etcd=0
fi
if false; then
  echo "$bin"
  exit 0
fi
command -v go >/dev/null || { echo "k8s-bin: go is not installed" >&2; exit 1; }
mkdir -p "$bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
staging_minor="v0.${k8s#v1.}"  # v1.33.13 → v0.33.13
cd "$work"
cat > go.mod <<MOD
module kubeop.local/k8sbin

go 1.24
MOD
# k8s.io/kubernetes requires its staging modules at v0.0.0 with local replaces that do not apply to dependents:
# point each at its published version.
for m in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap \
  code-generator component-base component-helpers controller-manager cri-api cri-client csi-translation-lib \
  dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy \
  kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver sample-cli-plugin \
  sample-controller; do
  echo "replace k8s.io/$m => k8s.io/$m $staging_minor" >> go.mod
done
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
export GOFLAGS=-mod=mod
go get "k8s.io/kubernetes@$k8s" >&2
[ "$only_etcd" = 1 ] || go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$k8s -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$k8s" | cut -d. -f2)" \
  -o "$bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager >&2
# etcd's own go.mod has replace directives, so `go install pkg@version` refuses it: build it inside this module.
go get "go.etcd.io/etcd/server/v3@$etcd" >&2
go build -trimpath -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3 >&2
"$bin/kube-apiserver" --version >&2
echo "$bin"
