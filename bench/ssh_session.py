"""Benchmark: the SSH client against a real sshd on loopback; prints JSON.

What the kubernetes_cluster MgmtDriver pays per VM and per step beside the
install script itself: a first-contact login (host key learnt), a pinned
login, one command's round trip on an open session, the script copy over
SFTP, and the connections one hook opens (one per VM whatever the number
of steps). Needs root and openssh-server, as the tests do.

    .venv/bin/python bench/ssh_session.py
"""

from __future__ import annotations

import json
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from vnfm.clients import outbound  # noqa: E402
from vnfm.clients import ssh  # noqa: E402
from vnfm_testbed.sshd import LoopbackSshd  # noqa: E402

LOOPBACK = outbound.Policy()  # loopback is denied by the default policy


def _ms(seconds: list[float]) -> dict:
    values = sorted(s * 1000 for s in seconds)
    return {
        'p50': round(statistics.median(values), 2),
        'p95': round(values[max(0, int(len(values) * 0.95) - 1)], 2),
    }


def _timed(fn, rounds: int) -> list[float]:  # noqa: ANN001
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main(rounds: int = 20, steps: int = 10) -> None:
    """Measure each figure ``rounds`` times; a hook of ``steps`` steps."""
    with (
        tempfile.TemporaryDirectory() as root,
        LoopbackSshd(pathlib.Path(root)) as server,
    ):
        server.start()
        first = ssh.Target(
            '127.0.0.1',
            server.username,
            password=server.password,
            port=server.port,
        )
        pinned = ssh.Target(
            '127.0.0.1',
            server.username,
            password=server.password,
            port=server.port,
            known_keys=(server.host_key,),
        )
        first_login = _timed(
            lambda: ssh.connect(first, LOOPBACK).close(), rounds
        )
        pinned_login = _timed(
            lambda: ssh.connect(pinned, LOOPBACK).close(), rounds
        )
        script = (
            pathlib.Path(__file__).parents[1]
            / 'samples'
            / 'kubernetes_cluster'
            / 'Scripts'
            / 'install_k8s_cluster.sh'
        ).read_bytes()
        path = f'{server.home}/install.sh'
        before = server.log_tail(10_000).count('Accepted password')
        with ssh.connect(pinned, LOOPBACK) as session:
            command = _timed(lambda: session.run('true', 'noop'), rounds)
            copy = _timed(lambda: session.put(script, path, 'copy'), rounds)
            for i in range(steps):
                session.run(f'echo {i}', f'step {i}')
        per_hook = server.log_tail(10_000).count('Accepted password') - before
    print(
        json.dumps(
            {
                'rounds': rounds,
                'first_contact_login_ms': _ms(first_login),
                'pinned_login_ms': _ms(pinned_login),
                'command_round_trip_ms': _ms(command),
                'script_copy_ms': _ms(copy),
                'script_bytes': len(script),
                'hook_steps': steps + 2 * rounds,
                'connections_per_vm_per_hook': per_hook,
            }
        )
    )


if __name__ == '__main__':
    main()
