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
import fcntl
import ipaddress
import json
import os
import re
import shlex
import signal
import socket
import subprocess  # nosec B404 - ip, unshare: fixed argv
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: Addresses of the local cloud: reserved for tests, never a private range.
TEST_RANGE = ipaddress.IPv4Network('198.18.0.0/15')
_OVERLAYS = ('etc', 'home', 'root', 'var')
#: One for the host: every local cloud on it picks address blocks under it.
ADDRESS_LOCK = Path('/run/lock/vnfm-localcloud-addresses.lock')
#: Where a VM sees its own directory's ``fs``: the upper dirs of its overlays.
_UPPERS = '/run/localcloud-fs'


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


def bridge_up(bridge: str, gateway_cidr: str | None) -> None:
    """Create ``bridge`` with the host's address ``gateway_cidr`` on it."""
    _ip_quiet('link', 'del', bridge)
    _ip('link', 'add', bridge, 'type', 'bridge')
    if gateway_cidr:
        bridge_address(bridge, gateway_cidr, 'add')
    _ip('link', 'set', bridge, 'up')


def bridge_address(bridge: str, cidr: str, verb: str) -> None:
    """Add (``verb`` add) or delete (del) the host's address on ``bridge``."""
    if verb == 'add':
        check_in_test_range(cidr)
        _ip('addr', 'add', cidr, 'dev', bridge)
    else:
        _ip_quiet('addr', 'del', cidr, 'dev', bridge)


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


class AddressLockTimeout(RuntimeError):
    """Another cloud held the address lock for too long."""


@contextlib.contextmanager
def address_lock(
    path: Path = ADDRESS_LOCK, timeout: float = 60.0
) -> Iterator[None]:
    """Hold the host's lock on picking address blocks: from choosing a
    free block until its bridge has the address (and so a route that
    :func:`free_block` sees), no other cloud on the host picks one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    with open(path, 'a') as f:
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise AddressLockTimeout(
                        f'{path} was held for more than {timeout:.0f} s'
                    ) from None
                time.sleep(0.05)  # green under heat-engine's eventlet
        yield  # closing the file releases the lock


def free_block(prefix: int = 22) -> ipaddress.IPv4Network:
    """The first /``prefix`` of the test range that no host route touches."""
    used = used_networks()
    for block in TEST_RANGE.subnets(new_prefix=prefix):
        if not any(block.overlaps(u) for u in used):
            return block
    raise RuntimeError(f'no free /{prefix} left in {TEST_RANGE}')


# --- VMs --------------------------------------------------------------------


def hostname_of(server_name: str) -> str:
    """The host name Nova gives a server: its name with spaces and ``_``
    as ``-``, other characters than letters, digits, ``.`` and ``-`` left
    out, lower case, at most 63 characters, no leading or trailing ``.``
    or ``-`` (``server`` if nothing is left)."""
    name = re.sub(r'[ _]', '-', server_name)
    name = re.sub(r'[^a-zA-Z0-9.-]+', '', name).lower()
    return name[:63].strip('.-') or 'server'


def _init_script(spec: dict[str, Any], vm_dir: Path) -> str:
    """What PID 1 of the VM runs before it becomes sshd."""
    q = shlex.quote
    lines = [
        'set -e',
        # Opened now: the VM's own /tmp will hide the VM directory.
        f'exec 3> {q(str(vm_dir / "host_keys"))}',
        f'hostname {q(spec["hostname"])}',
        'mount --make-rprivate /',
        'mount -t tmpfs tmpfs /run',
        *_upper_fs(vm_dir / 'fs'),
    ]
    for d in _OVERLAYS:
        up, work = Path(_UPPERS) / d, Path(_UPPERS) / f'.{d}-work'
        lines.append(f'mkdir -p {q(str(up))} {q(str(work))}')
        lines.append(
            f'mount -t overlay overlay -o lowerdir=/{d},upperdir={q(str(up))}'
            f',workdir={q(str(work))} /{d}'
        )
    # The VM gets its own /tmp; the host directories it must see
    # (``host_paths``) are bound in read-only at their own path, those in
    # the host's /tmp from a view of it taken before.
    paths = list(spec.get('host_paths') or [])
    host_tmp = '/var/lib/localcloud-host-tmp'
    lines += [f'mkdir -p {host_tmp}', f'mount --bind /tmp {host_tmp}']
    lines.append('mount -t tmpfs tmpfs /tmp')
    for path in paths:
        seen = (
            host_tmp + path.removeprefix('/tmp')
            if path.startswith('/tmp/')
            else path
        )
        lines += [
            f'mkdir -p {q(path)}',
            f'mount --bind {q(seen)} {q(path)}',
            f'mount -o remount,bind,ro {q(path)}',
        ]
    lines.append(f'umount -l {host_tmp}')
    lines += [
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


def _upper_fs(fs: Path) -> list[str]:
    """Lines that put the VM's directory ``fs`` at ``_UPPERS``, a path none
    of its overlays hides (the state dir may be under /root or /var), and
    keep the overlays' upper dirs there when its filesystem can hold them;
    else (an overlay, as ``~/.cache`` is where / is one) on a tmpfs."""
    q = shlex.quote
    parts = {p: f'{_UPPERS}/.probe/{p}' for p in ('lower', 'upper', 'work')}
    mnt = f'{_UPPERS}/.probe/mnt'
    return [
        f'mkdir -p {q(str(fs))} {_UPPERS}',
        f'mount --bind {q(str(fs))} {_UPPERS}',
        f'mkdir -p {" ".join(parts.values())} {mnt}',
        f'if mount -t overlay overlay -o lowerdir={parts["lower"]}'
        f',upperdir={parts["upper"]},workdir={parts["work"]} {mnt}'
        ' 2>/dev/null; then',
        f'  umount {mnt}',
        'else',
        f'  echo "localcloud: $(stat -f -c %T {_UPPERS}) cannot hold'
        ' the VM\'s overlay upper dirs: they are kept in memory (tmpfs)"',
        f'  mount -t tmpfs -o mode=755 vmfs {_UPPERS}',
        'fi',
    ]


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


def _veth(spec_id: str, index: int) -> tuple[str, str]:
    """(host end, VM end) of NIC ``index`` of VM ``spec_id``."""
    return f'lh{spec_id[:8]}{index}', f'lv{spec_id[:8]}{index}'


def plug(spec_id: str, index: int, nic: dict[str, Any]) -> None:
    """Give the VM's namespace interface eth``index`` for ``nic`` (also
    while it runs, as Nova's interface-attach)."""
    check_in_test_range(nic['cidr'])
    ns = _netns(spec_id)
    host_end, vm_end = _veth(spec_id, index)
    _ip_quiet('link', 'del', host_end)
    _ip('link', 'add', host_end, 'type', 'veth', 'peer', 'name', vm_end)
    _ip('link', 'set', host_end, 'master', nic['bridge'], 'up')
    _ip('link', 'set', vm_end, 'netns', ns)
    name = f'eth{index}'
    _ip('-n', ns, 'link', 'set', vm_end, 'name', name)
    if nic.get('mac'):
        _ip('-n', ns, 'link', 'set', name, 'address', nic['mac'])
    prefix = ipaddress.ip_network(nic['cidr']).prefixlen
    _ip('-n', ns, 'addr', 'add', f'{nic["ip"]}/{prefix}', 'dev', name)
    for extra in nic.get('floating_ips') or []:
        add_floating(spec_id, index, extra, nic['bridge'])
    _ip('-n', ns, 'link', 'set', name, 'up')
    if nic.get('gateway'):
        _ip('-n', ns, 'route', 'add', 'default', 'via', nic['gateway'])


def unplug(spec_id: str, index: int) -> None:
    """Remove interface eth``index`` from the VM (interface-detach)."""
    _ip_quiet('link', 'del', _veth(spec_id, index)[0])


def _vm_address(verb: str, spec_id: str, index: int, address: str) -> None:
    """``ip addr add|del ADDRESS/32`` on the VM's eth``index``."""
    run = _ip if verb == 'add' else _ip_quiet
    ns, dev = _netns(spec_id), f'eth{index}'
    run('-n', ns, 'addr', verb, f'{address}/32', 'dev', dev)


def add_floating(spec_id: str, index: int, address: str, bridge: str) -> None:
    """Make ``address`` reach the VM: a /32 on its eth``index`` and a host
    route to it through that NIC's bridge (as a floating IP's NAT would)."""
    check_in_test_range(f'{address}/32')
    _vm_address('del', spec_id, index, address)
    _vm_address('add', spec_id, index, address)
    _ip('route', 'replace', f'{address}/32', 'dev', bridge)


def remove_floating(
    address: str, spec_id: str | None = None, index: int = 0
) -> None:
    """Undo :func:`add_floating` (the VM may be gone already)."""
    _ip_quiet('route', 'del', f'{address}/32')
    if spec_id:
        _vm_address('del', spec_id, index, address)


def _plug(spec: dict[str, Any]) -> None:
    """Give the namespace one interface per NIC of the spec."""
    for i, nic in enumerate(spec['nics']):
        if not nic.get('detached'):
            plug(spec['id'], i, nic)


def start(spec: dict[str, Any], vm_dir: Path) -> int:
    """Boot the VM of ``spec`` in ``vm_dir``; the pid of its init."""
    vm_dir.mkdir(parents=True, exist_ok=True)
    ns = _netns(spec['id'])
    _ip_quiet('netns', 'del', ns)
    _ip('netns', 'add', ns)
    _ip('-n', ns, 'link', 'set', 'lo', 'up')
    _plug(spec)
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
            unplug(spec['id'], i)
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
