#!/bin/bash
# Build and cache the virtualenv of the local OpenStack used by vnfm's tests and demo.
#
# Keystone and Heat of one release series (2026.2: keystone 30, openstack-heat 27) from PyPI,
# pinned with tools/openstack-constraints.txt, plus the WSGI server and PostgreSQL driver they
# run with, in a virtualenv of their own (their libraries must not mix with vnfm's). Also
# installs the Debian packages the local "VMs" need (sshd, sudo, iproute2, nfs-ganesha, ...).
#
#   tools/build-openstack.sh      build once, then print the cache location (fast when cached)
#   VNFM_OPENSTACK_CACHE=/dir     where to cache (default ~/.cache/vnfm/openstack-2026.2)
#
# Output: the last line is a JSON object {"venv": ..., "series": ...}.
set -euo pipefail

SERIES=2026.2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE="${VNFM_OPENSTACK_CACHE:-$HOME/.cache/vnfm/openstack-$SERIES}"
VENV="$CACHE/venv"
CONSTRAINTS="$ROOT/tools/openstack-constraints.txt"
PACKAGES=(keystone==30.0.0 openstack-heat==27.0.1 psycopg2-binary cheroot)
DEBS=(openssh-server sudo iproute2 util-linux e2fsprogs procps)
# The storage server's NFS in the VMs (no kernel NFS here): a userspace server and client.
# Checked on every run, not part of the digest: a package added here installs without a
# rebuild of the virtualenv.
VM_DEBS=(nfs-ganesha nfs-ganesha-vfs libnfs-utils)
STAMP="$CACHE/.stamp"

log() { echo "build-openstack: $*" >&2; }

report() { printf '{"venv": "%s", "series": "%s"}\n' "$VENV" "$SERIES"; }

digest() {
    { printf '%s\n' "${PACKAGES[@]}" "${DEBS[@]}"; cat "$CONSTRAINTS"; } | sha256sum | cut -d' ' -f1
}

venv_built() {
    [[ -x "$VENV/bin/python" && "$(cat "$STAMP" 2>/dev/null)" == "$(digest)" ]]
}

missing_debs() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
    done
}

is_built() {
    venv_built && [[ -z "$(missing_debs "${DEBS[@]}" "${VM_DEBS[@]}")" ]]
}

# shellcheck source=lib/build.sh
source "$ROOT/tools/lib/build.sh"
build_once "$CACHE"

install_debs() {
    local missing=()
    mapfile -t missing < <(missing_debs "${DEBS[@]}" "${VM_DEBS[@]}")
    ((${#missing[@]} == 0)) && return 0
    log "installing ${missing[*]}"
    apt_install "${missing[@]}"
}

python_for_venv() {
    local py
    for py in "${VNFM_PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [[ -n $py ]] || continue
        if command -v "$py" >/dev/null 2>&1 &&
            "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$py"
            return 0
        fi
    done
    log "Python >= 3.11 is needed for keystone 30 (apt-get install python3 python3-venv)"
    return 1
}

build_venv() {
    local py
    py=$(python_for_venv)
    rm -rf "$VENV"
    "$py" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip >&2
    "$VENV/bin/python" -m pip install -q -c "$CONSTRAINTS" "${PACKAGES[@]}" >&2
    "$VENV/bin/python" -c 'import keystone.server.wsgi, heat.api.openstack.wsgi, cheroot.wsgi'
}

install_debs
if venv_built; then  # only Debian packages were missing
    report
    exit 0
fi
start=$(date +%s)
log "building into $CACHE (first run takes several minutes)"
build_venv
digest >"$STAMP"
log "built in $(( $(date +%s) - start )) s"
report
