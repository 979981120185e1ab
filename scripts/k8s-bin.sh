#!/usr/bin/env bash
# Builds (once, cached) the real control plane for the real-cluster tier: kube-apiserver, kube-controller-manager and
# kubectl from k8s.io/kubernetes in one go build, and etcd at the version that release's go.mod names, all through the
# Go module proxy. Prints the bin directory.
#   KUBEOP_K8S_VERSION (default v1.37.2; v1.35.4 builds the oldest supported minor), KUBEOP_ETCD_VERSION (default: the
#   go.etcd.io/etcd/server/v3 version k8s.io/kubernetes requires), KUBEOP_K8S_BIN_CACHE.
set -euo pipefail
k8s=${KUBEOP_K8S_VERSION:-v1.37.2}
cache=${KUBEOP_K8S_BIN_CACHE:-$HOME/.cache/kubeop/k8s-bin}
bin="$cache/$k8s"
binaries=(kube-apiserver kube-controller-manager kubectl etcd)
built() { for b in "${binaries[@]}"; do [ -x "$bin/$b" ] || return 1; done; }
if built && [ "${1:-}" != "--force" ]; then
  echo "$bin"
  exit 0
fi
command -v go >/dev/null || { echo "k8s-bin: go is not installed" >&2; exit 1; }
mkdir -p "$bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export GOFLAGS=-mod=mod
# k8s.io/kubernetes's own go.mod says which Go it needs, which etcd it was tested with, and which staging modules it
# replaces with local directories (replaces that do not apply to dependents): read all three from it.
k8s_mod=$(go mod download -json "k8s.io/kubernetes@$k8s" | sed -nE 's/^\s*"GoMod": "(.*)",?$/\1/p')
[ -f "$k8s_mod" ] || { echo "k8s-bin: could not download k8s.io/kubernetes@$k8s" >&2; exit 1; }
go_version=$(sed -nE 's/^go ([0-9.]+)$/\1/p' "$k8s_mod" | head -1)
etcd=${KUBEOP_ETCD_VERSION:-$(sed -nE 's#^\s*go\.etcd\.io/etcd/server/v3 (v[^ ]+).*#\1#p' "$k8s_mod" | head -1)}
[ -n "$etcd" ] || { echo "k8s-bin: no go.etcd.io/etcd/server/v3 version in k8s.io/kubernetes@$k8s go.mod" >&2; exit 1; }
staging="v0.${k8s#v1.}" # v1.37.2 → v0.37.2: the staging modules are published under this version
{
  echo "module kubeop.local/k8sbin"
  echo
  echo "go ${go_version:-1.26}"
  sed -nE 's#^\s*(k8s\.io/[A-Za-z0-9._-]+) => \./staging/src/k8s\.io/[A-Za-z0-9._-]+\s*$#replace \1 => \1 '"$staging"'#p' "$k8s_mod"
} > go.mod
grep -q '^replace ' go.mod || { echo "k8s-bin: found no staging replaces in k8s.io/kubernetes@$k8s go.mod" >&2; exit 1; }
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
go get "k8s.io/kubernetes@$k8s" "go.etcd.io/etcd/server/v3@$etcd" >&2
minor=$(echo "$k8s" | cut -d. -f2)
go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$k8s -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/client-go/pkg/version.gitVersion=$k8s -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor" \
  -o "$bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kubectl >&2
# etcd's own go.mod has replace directives, so `go install pkg@version` refuses it: build it inside this module.
go build -trimpath -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3 >&2
"$bin/kube-apiserver" --version >&2
"$bin/kubectl" version --client >&2
echo "$bin"
