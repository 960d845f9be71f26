"""The local cloud's hypervisor: "VMs" that are namespaces running sshd.

A VM is a network namespace on a host bridge, with its own mount, UTS and
PID namespaces: its hostname is the server name, /etc, /home, /root and /var
are overlays (nothing it writes reaches the host), and sshd, with fresh host
keys, is its first process. Standard library only: the Heat plugin runs it
with the OpenStack virtualenv's Python, the tests with vnfm's::

    python vmhost.py start SPEC.json      # prints {"pid": ...}
    python vmhost.py stop VM_DIR

Needs root (it is run as root by the test machines).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shlex
import signal
import socket
import subprocess  # nosec B404 - ip, unshare: fixed argv
import sys
import time
from pathlib import Path
from typing import Any

#: Addresses of the local cloud: reserved for tests, never a private range.
TEST_RANGE = ipaddress.IPv4Network('198.18.0.0/15')
_OVERLAYS = ('etc', 'home', 'root', 'var')


def _ip(*args: str) -> None:
    subprocess.run(['ip', *args], check=True, capture_output=True, timeout=30)


def _ip_quiet(*args: str) -> None:
    subprocess.run(['ip', *args], check=False, capture_output=True, timeout=30)


def check_in_test_range(cidr: str) -> ipaddress.IPv4Network:
    """``cidr`` as a network, refused unless inside 198.18.0.0/15."""
    net = ipaddress.ip_network(cidr, strict=False)
    if not (
        isinstance(net, ipaddress.IPv4Network) and net.subnet_of(TEST_RANGE)
    ):
        raise ValueError(f'{cidr} is outside the test range {TEST_RANGE}')
    return net


# --- networks ---------------------------------------------------------------


def bridge_up(bridge: str, gateway_cidr: str) -> None:
    """Create ``bridge`` with the host's address ``gateway_cidr`` on it."""
    check_in_test_range(gateway_cidr)
    _ip_quiet('link', 'del', bridge)
    _ip('link', 'add', bridge, 'type', 'bridge')
    _ip('addr', 'add', gateway_cidr, 'dev', bridge)
    _ip('link', 'set', bridge, 'up')


def bridge_down(bridge: str) -> None:
    """Delete ``bridge`` (and its VMs' host-side links)."""
    _ip_quiet('link', 'del', bridge)


def used_networks() -> list[ipaddress.IPv4Network]:
    """Networks the host already routes (to pick a free block)."""
    out = subprocess.run(
        ['ip', '-4', '-j', 'route', 'show'],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    nets = []
    for route in json.loads(out or '[]'):
        dst = route.get('dst', '')
        if dst and dst != 'default':
            net = ipaddress.ip_network(dst, strict=False)
            if isinstance(net, ipaddress.IPv4Network):
                nets.append(net)
    return nets


def free_block(prefix: int = 22) -> ipaddress.IPv4Network:
    """The first /``prefix`` of the test range that no host route touches."""
    used = used_networks()
    for block in TEST_RANGE.subnets(new_prefix=prefix):
        if not any(block.overlaps(u) for u in used):
            return block
    raise RuntimeError(f'no free /{prefix} left in {TEST_RANGE}')


# --- VMs --------------------------------------------------------------------


def _init_script(spec: dict[str, Any], vm_dir: Path) -> str:
    """What PID 1 of the VM runs before it becomes sshd."""
    q = shlex.quote
    lines = [
        'set -e',
        # Opened now: the VM's own /tmp will hide the VM directory.
        f'exec 3> {q(str(vm_dir / "host_keys"))}',
        f'hostname {q(spec["hostname"])}',
        'mount --make-rprivate /',
    ]
    for d in _OVERLAYS:
        up, work = vm_dir / 'fs' / d, vm_dir / 'fs' / f'.{d}-work'
        lines.append(f'mkdir -p {q(str(up))} {q(str(work))}')
        lines.append(
            f'mount -t overlay overlay -o lowerdir=/{d},upperdir={q(str(up))}'
            f',workdir={q(str(work))} /{d}'
        )
    lines += [
        'mount -t tmpfs tmpfs /tmp',
        'mount -t tmpfs tmpfs /run',
        *_DEV,
        'mkdir -p /run/sshd',
        f'echo {q(spec["hostname"])} > /etc/hostname',
        # Fresh host keys: the host's are hidden in the overlay.
        'rm -f /etc/ssh/ssh_host_*',
        'for t in ed25519 ecdsa; do'
        " ssh-keygen -q -t $t -N '' -f /etc/ssh/ssh_host_${t}_key; done",
        f'echo {q("127.0.1.1 " + spec["hostname"])} >> /etc/hosts',
        'mkdir -p /etc/ssh/sshd_config.d',
        'rm -f /etc/ssh/sshd_config.d/*',
        "printf 'PasswordAuthentication %s\\nKbdInteractiveAuthentication no"
        f"\\nUseDNS no\\n' {'yes' if spec.get('ssh_pwauth') else 'no'}"
        ' > /etc/ssh/sshd_config.d/50-localcloud.conf',
    ]
    for user in spec.get('users', []):
        lines += _user_lines(user)
    lines += [
        'for k in /etc/ssh/ssh_host_*_key.pub; do ssh-keygen -lf $k; done >&3',
        'exec 3>&-',
        'exec /usr/sbin/sshd -D -e',
    ]
    return '\n'.join(lines) + '\n'


# A private /dev: attached volumes appear there and nowhere else.
_DEV = (
    'mount -t tmpfs -o mode=755 tmpfs /dev',
    'for n in null:3 zero:5 full:7 random:8 urandom:9; do'
    ' mknod -m 666 /dev/${n%%:*} c 1 ${n##*:}; done',
    'mknod -m 666 /dev/tty c 5 0',
    'mkdir /dev/pts /dev/shm',
    'mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts',
    'ln -s pts/ptmx /dev/ptmx',
    'ln -s /proc/self/fd /dev/fd',
    'mount -t tmpfs tmpfs /dev/shm',
)


def _user_lines(user: dict[str, Any]) -> list[str]:
    q = shlex.quote
    name = user['name']
    lines = []
    if name != 'root':
        lines.append(
            f'id -u {q(name)} >/dev/null 2>&1'
            f' || useradd -m -s /bin/bash {q(name)}'
        )
    if user.get('password'):
        lines.append(f'echo {q(name + ":" + user["password"])} | chpasswd')
    if user.get('sudo'):
        lines.append(
            f'echo {q(name + " ALL=(ALL) NOPASSWD:ALL")}'
            f' > /etc/sudoers.d/90-{q(name)}'
        )
    keys = user.get('ssh_authorized_keys') or []
    if keys:
        home = '/root' if name == 'root' else f'/home/{name}'
        body = '\n'.join(keys)
        lines += [
            f'mkdir -p {q(home + "/.ssh")}',
            f"printf '%s\\n' {q(body)} > {q(home + '/.ssh/authorized_keys')}",
            f'chown -R {q(name)}: {q(home + "/.ssh")}',
            f'chmod 700 {q(home + "/.ssh")}',
            f'chmod 600 {q(home + "/.ssh/authorized_keys")}',
        ]
    return lines


def _netns(vm_id: str) -> str:
    return f'lcvm-{vm_id[:12]}'


def _plug(spec: dict[str, Any], ns: str) -> None:
    """Give the namespace one interface per NIC of the spec."""
    for i, nic in enumerate(spec['nics']):
        check_in_test_range(nic['cidr'])
        host_end, vm_end = f'lh{spec["id"][:8]}{i}', f'lv{spec["id"][:8]}{i}'
        _ip_quiet('link', 'del', host_end)
        _ip('link', 'add', host_end, 'type', 'veth', 'peer', 'name', vm_end)
        _ip('link', 'set', host_end, 'master', nic['bridge'], 'up')
        _ip('link', 'set', vm_end, 'netns', ns)
        name = f'eth{i}'
        _ip('-n', ns, 'link', 'set', vm_end, 'name', name)
        if nic.get('mac'):
            _ip('-n', ns, 'link', 'set', name, 'address', nic['mac'])
        prefix = ipaddress.ip_network(nic['cidr']).prefixlen
        _ip('-n', ns, 'addr', 'add', f'{nic["ip"]}/{prefix}', 'dev', name)
        _ip('-n', ns, 'link', 'set', name, 'up')
        if i == 0 and nic.get('gateway'):
            _ip('-n', ns, 'route', 'add', 'default', 'via', nic['gateway'])


def start(spec: dict[str, Any], vm_dir: Path) -> int:
    """Boot the VM of ``spec`` in ``vm_dir``; the pid of its init."""
    vm_dir.mkdir(parents=True, exist_ok=True)
    ns = _netns(spec['id'])
    _ip_quiet('netns', 'del', ns)
    _ip('netns', 'add', ns)
    _ip('-n', ns, 'link', 'set', 'lo', 'up')
    _plug(spec, ns)
    init = vm_dir / 'init.sh'
    init.write_text(_init_script(spec, vm_dir))
    (vm_dir / 'spec.json').write_text(json.dumps(spec))
    with open(vm_dir / 'console.log', 'ab') as log:
        proc = subprocess.Popen(  # noqa: S603 - fixed argv
            [
                'ip',
                'netns',
                'exec',
                ns,
                'unshare',
                '--mount',
                '--uts',
                '--pid',
                '--fork',
                '--kill-child',
                '--mount-proc',
                'sh',
                str(init),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    (vm_dir / 'pid').write_text(str(proc.pid))
    return proc.pid


def _alive(pid: int) -> bool:
    try:
        stat = Path(f'/proc/{pid}/stat').read_text()
    except OSError:
        return False
    return stat.rsplit(')', 1)[1].split()[0] != 'Z'


def state(vm_dir: Path) -> str:
    """``ACTIVE`` when sshd answers, ``BUILD`` before, ``ERROR`` if the
    VM's init has died."""
    spec = json.loads((vm_dir / 'spec.json').read_text())
    pid = int((vm_dir / 'pid').read_text())
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    if not _alive(pid):
        return 'ERROR'
    ip = spec['nics'][0]['ip']
    try:
        with socket.create_connection((ip, 22), timeout=1) as s:
            s.settimeout(1)
            return 'ACTIVE' if s.recv(8).startswith(b'SSH-') else 'BUILD'
    except OSError:
        return 'BUILD'


def console_tail(vm_dir: Path, lines: int = 15) -> str:
    """The last lines the VM's init printed."""
    try:
        text = (vm_dir / 'console.log').read_text(errors='replace')
    except OSError:
        return ''
    return '\n'.join(text.splitlines()[-lines:])


def stop(vm_dir: Path, timeout: float = 10.0) -> None:
    """Kill the VM's processes, delete its namespace and files."""
    spec_file = vm_dir / 'spec.json'
    if spec_file.exists():
        spec = json.loads(spec_file.read_text())
        pid_file = vm_dir / 'pid'
        if pid_file.exists():
            _kill(int(pid_file.read_text()), timeout)
        _ip_quiet('netns', 'del', _netns(spec['id']))
        for i in range(len(spec['nics'])):
            _ip_quiet('link', 'del', f'lh{spec["id"][:8]}{i}')
    subprocess.run(['rm', '-rf', str(vm_dir)], check=False, timeout=60)


def _kill(pid: int, timeout: float) -> None:
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            if not _alive(pid):
                return
            time.sleep(0.05)


def _first_process(vm_dir: Path) -> int:
    """Host pid of the VM's PID 1 (the child of unshare)."""
    pid = int((vm_dir / 'pid').read_text())
    children = Path(f'/proc/{pid}/task/{pid}/children').read_text().split()
    return int(children[0])


def _in_vm(vm_dir: Path, *argv: str) -> None:
    subprocess.run(
        [
            'nsenter',
            '-t',
            str(_first_process(vm_dir)),
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


def attach(vm_dir: Path, loop: str, used: list[str]) -> str:
    """Show ``loop`` in the VM as the first free /dev/vdX; its path."""
    device = next(
        f'/dev/vd{c}'
        for c in 'bcdefghijklmnopqrstuvwxyz'
        if f'/dev/vd{c}' not in used
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
    if not (vm_dir / 'pid').exists():
        return
    script = (
        f'awk \'$1=="{device}"{{print $2}}\' /proc/mounts'
        ' | xargs -r -n1 umount -l; rm -f ' + device
    )
    _in_vm(vm_dir, 'sh', '-c', script)


def host_keys(vm_dir: Path) -> list[str]:
    """``ssh-keygen -l`` lines of the VM's host keys (fingerprints)."""
    path = vm_dir / 'host_keys'
    return path.read_text().splitlines() if path.exists() else []


def main(argv: list[str]) -> int:
    """``start SPEC.json VM_DIR`` | ``stop VM_DIR`` | ``state VM_DIR``."""
    cmd, *rest = argv
    if cmd == 'start':
        spec = json.loads(Path(rest[0]).read_text())
        print(json.dumps({'pid': start(spec, Path(rest[1]))}))
    elif cmd == 'stop':
        stop(Path(rest[0]))
    elif cmd == 'state':
        print(state(Path(rest[0])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
