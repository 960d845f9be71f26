"""The local cloud's disks: volumes are sparse files on loop devices that a
VM sees as /dev/vdb, /dev/vdc, ... in its private /dev.

Standard library only (the Heat plugin loads it by file, like vmhost).
"""

from __future__ import annotations

import os
import subprocess  # nosec B404 - losetup, nsenter: fixed argv
from pathlib import Path

_LETTERS = 'bcdefghijklmnopqrstuvwxyz'


def first_process(vm_dir: Path) -> int:
    """Host pid of the VM's PID 1 (the child of unshare)."""
    pid = int((vm_dir / 'pid').read_text())
    children = Path(f'/proc/{pid}/task/{pid}/children').read_text().split()
    return int(children[0])


def _in_vm(vm_dir: Path, *argv: str) -> None:
    subprocess.run(
        [
            'nsenter',
            '-t',
            str(first_process(vm_dir)),
            '-m',
            '-p',
            '--',
            *argv,
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )


def volume_create(image: Path, size_gib: int) -> str:
    """A sparse file of ``size_gib`` on a loop device; the device."""
    image.parent.mkdir(parents=True, exist_ok=True)
    with open(image, 'wb') as f:
        f.truncate(size_gib * 1024**3)
    return subprocess.run(
        ['losetup', '-f', '--show', str(image)],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout.strip()


def volume_delete(image: Path, loop: str) -> None:
    """Free the loop device and delete the file."""
    subprocess.run(
        ['losetup', '-d', loop], check=False, capture_output=True, timeout=30
    )
    image.unlink(missing_ok=True)


def attach(
    vm_dir: Path, loop: str, used: list[str], device: str | None = None
) -> str:
    """Show ``loop`` in the VM as ``device`` (default: the first /dev/vdX
    not in ``used``); the device path."""
    device = device or next(
        f'/dev/vd{c}' for c in _LETTERS if f'/dev/vd{c}' not in used
    )
    rdev = os.stat(loop).st_rdev
    major, minor = os.major(rdev), os.minor(rdev)
    _in_vm(
        vm_dir,
        'sh',
        '-c',
        f'mknod {device} b {major} {minor} && chmod 660 {device}',
    )
    return device


def detach(vm_dir: Path, device: str) -> None:
    """Unmount ``device`` in the VM (lazily) and remove it."""
    if not running(vm_dir):
        return  # a VM that has died holds no device
    script = (
        f'awk \'$1=="{device}"{{print $2}}\' /proc/mounts'
        ' | xargs -r -n1 umount -l; rm -f ' + device
    )
    _in_vm(vm_dir, 'sh', '-c', script)


def running(vm_dir: Path) -> bool:
    """Whether the VM's first process is alive (devices can be made)."""
    try:
        first_process(vm_dir)
    except (OSError, ValueError, IndexError):
        return False
    return True
