# shellcheck shell=bash
# Helpers of the build scripts that cache what the tests need (tools/build-*.sh).
#
#   source tools/lib/build.sh
#   build_once CACHE-DIR     # the caller defines is_built, report and log first
#   apt_install PKG...

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

build_once() {
    # Exit after `report` when the build is there; else hold CACHE-DIR's build lock.
    if is_built; then  # fast path: no lock, no apt
        report
        exit 0
    fi
    mkdir -p "$1"
    exec 9>"$1/.build.lock"
    log "taking the build lock $1/.build.lock (another build may hold it)"
    flock 9
    if is_built; then  # another run built it while we waited
        report
        exit 0
    fi
}

apt_install() {
    # Install Debian packages, refreshing the package lists only if the first try fails.
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
            "$@" >&2; then
        as_root apt-get -o DPkg::Lock::Timeout=600 update >&2 || true
        as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
            "$@" >&2
    fi
}
