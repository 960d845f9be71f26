"""The storage server's set-up as root shell steps run over SSH.

Each step converges: it looks first and changes only what differs, and
prints one ``CHANGED=<what>`` line per change it made (``Changes`` counts
them, so that a second run can be shown to change nothing). The steps:

- ``volume``: the Cinder volume's device found in the VM (its
  ``/dev/disk/by-id/virtio-<id>`` name where udev made one, else the
  device Nova attached it as); an ext4 file system made only when the
  device has none and no partition table (a heal keeps the data); an
  ``/etc/fstab`` line by UUID; mounted.
- ``export-dirs``: the exported directories made (mode 0777, owned by
  nobody, only when made: an operator's later changes are kept).
- ``packages``: Debian packages installed when missing (the NFS server,
  the NFS client on the cluster's VMs).
- ``nfs-kernel``: the exports in a marked block of ``/etc/exports``,
  ``exportfs -ra`` when it changed, the server started.
- ``nfs-ganesha``: ``/etc/ganesha/ganesha.conf`` written by vnfm (NFSv4,
  VFS), the daemon (re)started when it changed or is not running (by
  systemd where it runs, else directly), until it listens on 2049.
"""

from __future__ import annotations

import base64
import dataclasses
import shlex
from collections.abc import Sequence

from vnfm.clients import ssh
from vnfm.objects import k8s_storage

SERVER_PACKAGES = {
    'kernel': ('nfs-kernel-server',),
    'ganesha': ('nfs-ganesha', 'nfs-ganesha-vfs'),
}
#: The kernel's NFS client (mount.nfs), which the kubelet mounts PVs with.
CLIENT_PACKAGES = ('nfs-common',)
GANESHA_CONF = '/etc/ganesha/ganesha.conf'
_BEGIN = '# BEGIN vnfm storage_server exports'
_END = '# END vnfm storage_server exports'
_KERNEL_OPTIONS = 'rw,sync,no_subtree_check,no_root_squash'
_CHANGED = 'CHANGED='


@dataclasses.dataclass(frozen=True)
class Change:
    """One change a step made on a VM."""

    host: str
    step: str
    what: str


@dataclasses.dataclass
class Changes:
    """The changes of a run, in order."""

    made: list[Change] = dataclasses.field(default_factory=list)

    def __len__(self) -> int:
        return len(self.made)

    def extend(self, other: Changes) -> None:
        """Add the changes of ``other``."""
        self.made.extend(other.made)

    def to_dict(self) -> dict[str, object]:
        """Count and list, for a result or a bench."""
        return {
            'changed': len(self.made),
            'changes': [dataclasses.asdict(c) for c in self.made],
        }


def run_step(
    session: ssh.Session,
    step: str,
    script: str,
    timeout: float,
    changes: Changes,
) -> str:
    """Run ``script`` as root; record its CHANGED lines; its stdout."""
    result = session.run(
        f'set -eu\n{script}', step, timeout=timeout, as_root=True
    )
    for line in result.stdout.splitlines():
        if line.startswith(_CHANGED):
            changes.made.append(
                Change(session.target.host, step, line[len(_CHANGED) :])
            )
    return result.stdout


def _q(value: str) -> str:
    return shlex.quote(value)


def _file_from(data: str, path: str) -> str:
    """Shell that writes ``data`` to ``path`` (no quoting pitfalls)."""
    encoded = base64.b64encode(data.encode()).decode()
    return f'printf %s {encoded} | base64 -d > {_q(path)}\n'


def device_candidates(volume_id: str, devices: Sequence[str]) -> list[str]:
    """Where a volume may appear in the VM, the most reliable first: udev's
    virtio serial name (Nova's device name can be wrong in the guest)."""
    found = [f'/dev/disk/by-id/virtio-{volume_id[:20]}'] if volume_id else []
    return found + [d for d in devices if d]


def volume_script(candidates: Sequence[str], mount_to: str) -> str:
    """The ``volume`` step for one volume (every value quoted)."""
    where = ' '.join(_q(c) for c in candidates)
    m = _q(mount_to)
    return f"""
dev=
for d in {where}; do
  if [ -b "$d" ]; then dev=$(readlink -f "$d"); break; fi
done
[ -n "$dev" ] || {{ echo none of {where} is a block device >&2; exit 3; }}
elsewhere=$(findmnt -rn -o TARGET -S "$dev" | grep -vx {m} || true)
[ -z "$elsewhere" ] || {{ echo "$dev is mounted on $elsewhere" >&2; exit 4; }}
fstype=$(blkid -p -s TYPE -o value "$dev" || true)
if [ -z "$fstype" ]; then
  pt=$(blkid -p -s PTTYPE -o value "$dev" || true)
  if [ -n "$pt" ]; then
    echo "$dev has a $pt partition table and no file system" >&2; exit 4
  fi
  mkfs.ext4 -q -F "$dev" >&2
  echo CHANGED=mkfs.ext4 "$dev"
  fstype=ext4
fi
uuid=$(blkid -p -s UUID -o value "$dev")
# Where no udev makes /dev/disk/by-uuid, blkid's cache resolves UUID=.
blkid "$dev" > /dev/null 2>&1 || true
line="UUID=$uuid "{m}" $fstype defaults,nofail 0 2"
if ! grep -qxF "$line" /etc/fstab 2>/dev/null; then
  awk -v m={m} '$1 ~ /^#/ || $2 != m' /etc/fstab > /etc/fstab.vnfm || true
  echo "$line" >> /etc/fstab.vnfm
  cat /etc/fstab.vnfm > /etc/fstab && rm -f /etc/fstab.vnfm
  echo CHANGED=fstab {m}
fi
if [ ! -d {m} ]; then mkdir -p {m}; echo CHANGED=mkdir {m}; fi
if mountpoint -q {m}; then
  now=$(findmnt -rn -o SOURCE --mountpoint {m} | head -n1)
  if [ "$(readlink -f "$now")" != "$dev" ]; then
    echo {m}" has $now mounted, not $dev" >&2; exit 4
  fi
else
  mount {m}
  echo CHANGED=mount {m}
fi
echo "DEVICE=$dev"
"""


def export_dirs_script(exports: Sequence[k8s_storage.NfsExport]) -> str:
    """The ``export-dirs`` step."""
    lines = []
    for d in dict.fromkeys(e.export_dir for e in exports):
        lines.append(
            f'if [ ! -d {_q(d)} ]; then mkdir -p {_q(d)}; '
            f'chown nobody:nogroup {_q(d)} 2>/dev/null || true; '
            f'chmod 0777 {_q(d)}; echo CHANGED=mkdir {_q(d)}; fi'
        )
    return '\n'.join(lines) + '\n'


def packages_script(packages: Sequence[str]) -> str:
    """The ``packages`` step: install those missing."""
    names = ' '.join(_q(p) for p in packages)
    return f"""
missing=
for p in {names}; do
  dpkg-query -W -f='${{Status}}' "$p" 2>/dev/null | grep -q 'ok installed' \\
    || missing="$missing $p"
done
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends $missing >&2 || {{
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends $missing >&2
  }}
  echo CHANGED=installed$missing
fi
"""


def _clients(exports: Sequence[k8s_storage.NfsExport]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in exports:
        out.setdefault(e.export_dir, [])
        if e.export_to not in out[e.export_dir]:
            out[e.export_dir].append(e.export_to)
    return out


def exports_block(exports: Sequence[k8s_storage.NfsExport]) -> str:
    """vnfm's block of /etc/exports."""
    lines = [_BEGIN]
    for d, clients in _clients(exports).items():
        lines.append(
            f'"{d}" ' + ' '.join(f'{c}({_KERNEL_OPTIONS})' for c in clients)
        )
    return '\n'.join([*lines, _END]) + '\n'


def kernel_script(exports: Sequence[k8s_storage.NfsExport]) -> str:
    """The ``nfs-kernel`` step."""
    return (
        _file_from(exports_block(exports), '/etc/exports.vnfm-block')
        + f"""
touch /etc/exports
awk '$0 == "{_BEGIN}" {{skip = 1}} !skip {{print}}
  $0 == "{_END}" {{skip = 0}}' /etc/exports > /etc/exports.vnfm
cat /etc/exports.vnfm-block >> /etc/exports.vnfm
rm -f /etc/exports.vnfm-block
if cmp -s /etc/exports.vnfm /etc/exports; then
  rm -f /etc/exports.vnfm
else
  cat /etc/exports.vnfm > /etc/exports && rm -f /etc/exports.vnfm
  echo CHANGED=/etc/exports
  exportfs -ra
fi
if [ -d /run/systemd/system ]; then
  if ! systemctl is-active --quiet nfs-server; then
    systemctl enable --now nfs-server >&2; echo CHANGED=started nfs-server
  fi
elif ! pgrep -x nfsd > /dev/null; then
  service nfs-kernel-server start >&2; echo CHANGED=started nfs-kernel-server
fi
"""
    )


def ganesha_conf(exports: Sequence[k8s_storage.NfsExport]) -> str:
    """/etc/ganesha/ganesha.conf serving ``exports`` over NFSv4."""
    parts = [
        '# Written by vnfm (kubernetes_cluster MgmtDriver, storage_server);',
        '# changes here are overwritten.',
        'NFS_CORE_PARAM { Protocols = 4; Enable_NLM = false;'
        ' Enable_RQUOTA = false; }',
        # No 90 s grace after a restart: the Pods' mounts would hang.
        'NFSV4 { Graceless = true; }',
    ]
    for i, (d, clients) in enumerate(_clients(exports).items(), start=1):
        parts.append(
            f'EXPORT {{\n  Export_Id = {i};\n  Path = "{d}";\n'
            f'  Pseudo = "{d}";\n  Protocols = 4;\n  Access_Type = None;\n'
            '  Squash = No_Root_Squash;\n  SecType = sys;\n'
            f'  CLIENT {{ Clients = {", ".join(clients)};'
            ' Access_Type = RW; }\n'
            '  FSAL { Name = VFS; }\n}'
        )
    return '\n'.join(parts) + '\n'


def ganesha_script(exports: Sequence[k8s_storage.NfsExport]) -> str:
    """The ``nfs-ganesha`` step."""
    conf = GANESHA_CONF
    return (
        'mkdir -p /etc/ganesha\n'
        + _file_from(ganesha_conf(exports), conf + '.vnfm')
        + f"""
restart=0
if cmp -s {conf}.vnfm {conf}; then
  rm -f {conf}.vnfm
else
  mv {conf}.vnfm {conf}; echo CHANGED={conf}; restart=1
fi
pidf=/run/ganesha/ganesha.pid
running() {{ [ -s $pidf ] && kill -0 "$(cat $pidf)" 2> /dev/null; }}
if [ -d /run/systemd/system ]; then
  if [ $restart = 1 ]; then
    systemctl restart nfs-ganesha >&2; echo CHANGED=restarted nfs-ganesha
  elif ! systemctl is-active --quiet nfs-ganesha; then
    systemctl enable --now nfs-ganesha >&2; echo CHANGED=started nfs-ganesha
  fi
else
  if [ $restart = 1 ] && running; then
    kill "$(cat $pidf)"; i=0
    while running && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  fi
  if ! running; then
    mkdir -p /run/ganesha /var/lib/nfs/ganesha /var/log/ganesha
    ganesha.nfsd -f {conf} -L /var/log/ganesha/ganesha.log -p $pidf \\
      < /dev/null > /dev/null 2>&1
    echo CHANGED=started ganesha.nfsd
  fi
fi
i=0
until ss -Hltn 'sport = :2049' | grep -q .; do
  i=$((i + 1))
  if [ $i -gt 600 ]; then
    echo 'nfs-ganesha does not listen on port 2049:' >&2
    tail -n 5 /var/log/ganesha/ganesha.log >&2 || true
    exit 5
  fi
  sleep 0.1
done
"""
    )


def server_script(kind: str, exports: Sequence[k8s_storage.NfsExport]) -> str:
    """The step that configures and starts the NFS server ``kind``."""
    if kind == 'ganesha':
        return ganesha_script(exports)
    return kernel_script(exports)
