"""The storage server's root scripts keep every value a parameter gives
them literal: each is run here in a real bash, with hostile values that
the API refuses anyway (the scripts must not rely on that), and with the
commands that would change the machine replaced by functions recording
their arguments."""

from __future__ import annotations

import os
import pathlib
import subprocess  # noqa: S404 - the test runs bash on purpose

import pytest

from tests.unit import hostile_values
from vnfm.drivers.mgmt.kubernetes_cluster import nfs
from vnfm.objects import k8s_storage

# Every command the scripts run that could change something, as a
# function that writes its arguments (NUL-separated) to $LOG; '[' passes
# through except for -b (a block device: the test has none to offer).
_STUBS = r"""
record() { printf '%s\0' "$@" >> "$LOG"; printf '\n' >> "$LOG"; }
[() { if [[ $1 == -b ]]; then return 0; fi; builtin [ "$@"; }
readlink() { echo /dev/vnfm-test; }
findmnt() { record findmnt "$@"; }
blkid() { case "$*" in *TYPE*) echo ext4;; *UUID*) echo 1234-abcd;; esac; }
mkfs.ext4() { record mkfs.ext4 "$@"; }
grep() { record grep "$@"; return 1; }
awk() { record awk "$@"; }
mkdir() { record mkdir "$@"; }
chown() { record chown "$@"; }
chmod() { record chmod "$@"; }
mountpoint() { return 1; }
mount() { record mount "$@"; }
"""


def _run(script: str, tmp: pathlib.Path) -> tuple[str, list[list[str]]]:
    """stdout of ``script`` in bash (its /etc under ``tmp``) and the
    commands it ran."""
    (tmp / 'etc').mkdir(exist_ok=True)
    log = tmp / 'log'
    body = script.replace('/etc/fstab', f'{tmp}/etc/fstab')
    done = subprocess.run(  # noqa: S603 - a fixed argv
        ['/bin/bash', '-c', f'{_STUBS}\nset -eu\n{body}'],
        env={'PATH': os.environ['PATH'], 'LOG': str(log)},
        capture_output=True,
        check=False,
        timeout=10,
    )
    assert done.returncode == 0, done.stderr.decode()
    calls = []
    if log.exists():
        for line in log.read_bytes().decode().split('\0\n'):
            if line:
                calls.append(line.split('\0'))
    return done.stdout.decode(), calls


@pytest.fixture(autouse=True)
def no_canary():
    pathlib.Path(hostile_values.CANARY).unlink(missing_ok=True)
    yield
    assert not os.path.exists(hostile_values.CANARY), 'a payload ran'


@pytest.mark.parametrize(
    'payload',
    hostile_values.SHELL_PAYLOADS.values(),
    ids=hostile_values.SHELL_PAYLOADS,
)
def test_mount_to_stays_literal_in_the_volume_step(payload, tmp_path):
    mount_to = f'/volume{payload}'
    out, calls = _run(nfs.volume_script(['/dev/vdb'], mount_to), tmp_path)
    assert ['mkdir', '-p', mount_to] in calls
    assert ['mount', mount_to] in calls
    assert f'CHANGED=mount {mount_to}' in out
    fstab = (tmp_path / 'etc' / 'fstab').read_bytes().decode()
    assert fstab == f'UUID=1234-abcd {mount_to} ext4 defaults,nofail 0 2\n'


@pytest.mark.parametrize(
    'payload',
    hostile_values.SHELL_PAYLOADS.values(),
    ids=hostile_values.SHELL_PAYLOADS,
)
def test_export_dir_stays_literal_in_the_export_dirs_step(payload, tmp_path):
    export_dir = f'/volume/nfs{payload}'
    exports = [k8s_storage.NfsExport(export_dir, '198.18.0.0/24')]
    out, calls = _run(nfs.export_dirs_script(exports), tmp_path)
    assert ['mkdir', '-p', export_dir] in calls
    assert ['chmod', '0777', export_dir] in calls
    assert f'CHANGED=mkdir {export_dir}' in out


@pytest.mark.parametrize(
    'payload',
    hostile_values.SHELL_PAYLOADS.values(),
    ids=hostile_values.SHELL_PAYLOADS,
)
def test_device_names_from_the_vim_stay_literal(payload, tmp_path):
    # The devices Nova reports and the Cinder volume id come from a peer.
    candidates = nfs.device_candidates(f'id{payload}', [f'/dev/vd{payload}'])
    script = nfs.volume_script(candidates, '/volume')
    # No block device at all: the step names the candidates and stops.
    script = script.replace('if [ -b "$d" ]', 'if false')
    with pytest.raises(AssertionError, match='none of /dev/disk/by-id/'):
        _run(script, tmp_path)
