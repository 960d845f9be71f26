# shellcheck shell=bash
# Create and refresh the project virtualenv; sourced by tools/demo (and tools/run-tests).
#
#   source tools/lib/venv.sh
#   vnfm_venv_ensure NAME PIP-INSTALL-ARGS...
#
# Creates $VNFM_VENV (default: <repo>/.venv) with python3 (>= 3.10) when it is missing, then
# runs `pip install PIP-INSTALL-ARGS` unless the stamp file .venv/.stamp-NAME holds the digest
# of those arguments, of every `-r`/`-c` file they name and of setup.cfg and the testbed's
# pyproject.toml, so a second run is
# instant and a changed requirements file is picked up.

VNFM_ROOT=${VNFM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VNFM_VENV=${VNFM_VENV:-$VNFM_ROOT/.venv}

vnfm_venv_python() {
    # The interpreter that creates the venv: $VNFM_PYTHON or the first python3 >= 3.10.
    local py
    for py in "${VNFM_PYTHON:-}" python3 python3.13 python3.12 python3.11 python3.10; do
        [ -n "$py" ] || continue
        if command -v "$py" >/dev/null 2>&1 &&
            "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            command -v "$py"
            return 0
        fi
    done
    echo "vnfm: Python >= 3.10 is needed (Debian: apt-get install python3 python3-venv)" >&2
    return 1
}

vnfm_venv_create() {
    # Create the venv when it has no interpreter yet.
    [ -x "$VNFM_VENV/bin/python" ] && return 0
    local py
    py=$(vnfm_venv_python) || return 1
    echo "vnfm: creating $VNFM_VENV with $py" >&2
    if ! "$py" -m venv "$VNFM_VENV"; then
        echo "vnfm: 'python3 -m venv' failed (Debian: apt-get install python3-venv)" >&2
        return 1
    fi
    "$VNFM_VENV/bin/python" -m pip install -q --upgrade pip >&2
}

vnfm_venv_digest() {
    # Digest of the install arguments and of the files they depend on.
    local arg prev=""
    {
        printf '%s\n' "$@"
        cat "$VNFM_ROOT/setup.cfg" "$VNFM_ROOT/vnfm_testbed/pyproject.toml"
        for arg in "$@"; do
            if [ "$prev" = "-r" ] || [ "$prev" = "-c" ]; then
                cat "$arg"
            fi
            prev=$arg
        done
    } | sha256sum | cut -d' ' -f1
}

vnfm_venv_ensure() {
    # vnfm_venv_ensure NAME PIP-ARGS...: create the venv, install PIP-ARGS once per digest.
    local name=$1
    shift
    vnfm_venv_create || return 1
    local stamp="$VNFM_VENV/.stamp-$name" digest
    digest=$(cd "$VNFM_ROOT" && vnfm_venv_digest "$@")
    if [ "$(cat "$stamp" 2>/dev/null)" = "$digest" ]; then
        return 0
    fi
    echo "vnfm: installing into $VNFM_VENV ($name): $*" >&2
    # pip's build warnings go to a log, shown only when the install fails.
    local log="$VNFM_VENV/.install-$name.log"
    if ! (cd "$VNFM_ROOT" && "$VNFM_VENV/bin/python" -m pip install -q "$@") >"$log" 2>&1; then
        cat "$log" >&2
        echo "vnfm: pip install failed (log: $log)" >&2
        return 1
    fi
    echo "$digest" >"$stamp"
}
