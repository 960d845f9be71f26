#!/bin/bash
# Build and cache the Kubernetes 1.20.2 control plane used by vnfm's tests and demo.
#
# Builds kube-apiserver, kube-controller-manager and kube-scheduler from Debian bookworm's
# source package "kubernetes" (it vendors all Go dependencies, so the build is offline),
# installs etcd-server, and puts a kubectl 1.20.2 (from the kubernetes-client .deb, unpacked,
# so it never clashes with another /usr/bin/kubectl) next to them.
#
#   tools/build-k8s.sh            build once, then print the cache location (fast when cached)
#   VNFM_K8S_CACHE=/some/dir      where to cache (default ~/.cache/vnfm/k8s-1.20.2)
#
# Output: the last line is a JSON object {"bin_dir":..., "kubectl":..., "etcd":...}.
set -euo pipefail

CACHE="${VNFM_K8S_CACHE:-$HOME/.cache/vnfm/k8s-1.20.2}"
BIN="$CACHE/bin"
WORK="$CACHE/work"
SERVER_BINS=(kube-apiserver kube-controller-manager kube-scheduler)
SRC_LIST=/etc/apt/sources.list.d/vnfm-k8s-src.sources

log() { echo "build-k8s: $*" >&2; }

report() {
    printf '{"bin_dir": "%s", "kubectl": "%s", "etcd": "%s"}\n' \
        "$BIN" "$BIN/kubectl" "$(command -v etcd || echo /usr/bin/etcd)"
}

is_built() {
    local b
    for b in "${SERVER_BINS[@]}" kubectl; do
        [[ -x "$BIN/$b" ]] || return 1
    done
    [[ -x /usr/bin/etcd ]]
}

# Fast path: everything is cached, no lock, no apt.
if is_built; then
    report
    exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.build.lock"
log "taking the build lock $CACHE/.build.lock (another build may hold it)"
flock 9
if is_built; then  # another run built it while we waited
    report
    exit 0
fi

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

cleanup_src_list() { as_root rm -f "$SRC_LIST"; }

install_packages() {
    local pkgs=(golang-go etcd-server rsync jq dpkg-dev make)
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
            "${pkgs[@]}" >&2; then
        as_root apt-get -o DPkg::Lock::Timeout=600 update >&2 || true
        as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
            "${pkgs[@]}" >&2
    fi
}

fetch_source() {
    trap cleanup_src_list EXIT
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n%s\n%s\n' \
        'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
        | as_root tee "$SRC_LIST" >/dev/null
    # Refresh only the deb-src index; keep the other lists as they are.
    as_root apt-get update -o Dir::Etc::sourcelist="$SRC_LIST" -o Dir::Etc::sourceparts=- \
        -o APT::Get::List-Cleanup=0 >&2
    rm -rf "$WORK"
    mkdir -p "$WORK"
    (cd "$WORK" && apt-get source --download-only kubernetes >&2 \
        && apt-get download kubernetes-client >&2)
    cleanup_src_list
    trap - EXIT
}

unpack_kubectl() {
    local deb
    deb=$(ls "$WORK"/kubernetes-client_*.deb)
    dpkg-deb -x "$deb" "$WORK/client"
    install -m 0755 "$WORK/client/usr/bin/kubectl" "$BIN/kubectl"
}

build_server() {
    local dsc src
    dsc=$(ls "$WORK"/kubernetes_*.dsc)
    (cd "$WORK" && dpkg-source --no-check -x "$dsc" src >&2)
    src="$WORK/src"
    # Debian's own recipe (debian/rules): GOPATH with the tree linked in as k8s.io/kubernetes.
    mkdir -p "$src/.go/src/k8s.io"
    ln -sfn ../../.. "$src/.go/src/k8s.io/kubernetes"
    (
        cd "$src"
        export GOPATH="$src/.go" GOPROXY=off GOFLAGS=-mod=vendor CGO_ENABLED=0
        export GOCACHE="$WORK/gocache" HOME="$WORK/home"
        export PATH="/usr/lib/go/bin:$PATH"
        make WHAT="$(printf 'cmd/%s ' "${SERVER_BINS[@]}")" >&2
    )
    local b
    for b in "${SERVER_BINS[@]}"; do
        install -m 0755 "$src/_output/bin/$b" "$BIN/$b"
    done
}

start=$(date +%s)
log "building into $CACHE (first run takes several minutes)"
install_packages
fetch_source
mkdir -p "$BIN"
unpack_kubectl
build_server
rm -rf "$WORK"  # the tree and Go build cache are several GB; keep only the binaries
log "built in $(( $(date +%s) - start )) s"
"$BIN/kube-apiserver" --version >&2
"$BIN/kubectl" version --client --short >&2 2>/dev/null || true
report
