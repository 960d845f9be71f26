"""Starting and stopping test daemons by pid, each in its own process group.

Used by the local Kubernetes cluster and by ``VnfmServices`` (vnfm-api and
vnfm-conductors on a private RabbitMQ vhost and PostgreSQL database) of the
integration tests and benchmarks.
"""

from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import ctypes
import functools
import os
import pwd
import signal
import socket
import subprocess  # nosec B404 - launching our own test daemons
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib import parse

_PR_SET_PDEATHSIG = 1
# Fields of /proc/<pid>/stat after "(comm)": state, ppid, pgrp, ..., and
# starttime (field 22 of the whole line, clock ticks after boot).
_STATE, _PPID, _PGRP, _START = 0, 1, 2, 19


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f'/proc/{pid}/stat').read_text()
    except OSError:
        return None
    return text.rsplit(')', 1)[1].split()


@dataclass(frozen=True)
class Proc:
    """A process named by pid and start time, so that a reused pid is
    never taken for it.

    Liveness is judged from /proc/<pid>/stat, never from the command line:
    the kernel shows an empty /proc/<pid>/cmdline while it still loads the
    program after exec (longer when the binary must be read from disk).
    """

    pid: int
    start: int

    @classmethod
    def of(cls, pid: int) -> Proc | None:
        """The process ``pid`` now (a zombie too), None if there is none."""
        fields = _stat(pid)
        return cls(pid, int(fields[_START])) if fields else None

    def alive(self) -> bool:
        """Whether this very process exists and is not a zombie."""
        fields = _stat(self.pid)
        return (
            fields is not None
            and fields[_STATE] != 'Z'
            and (int(fields[_START]) == self.start)
        )


def _all_stats() -> Iterator[tuple[int, list[str]]]:
    for entry in Path('/proc').iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields:
                yield int(entry.name), fields


def descendants(pid: int) -> list[Proc]:
    """Live descendants of ``pid`` (those in sessions of their own too)."""
    children: dict[int, list[Proc]] = {}
    for child, fields in _all_stats():
        if fields[_STATE] != 'Z':
            children.setdefault(int(fields[_PPID]), []).append(
                Proc(child, int(fields[_START]))
            )
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += [k.pid for k in kids]
    return found


def _die_with_parent(parent: int, sig: int) -> None:
    libc = ctypes.CDLL('libc.so.6', use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:  # the parent died before prctl
        os.kill(os.getpid(), sig)


class Daemon:
    """A process started by this one in a session of its own, output to a
    log file; judged alive by waiting on it, as only its parent can."""

    def __init__(
        self,
        argv: Sequence[str],
        log_path: Path,
        *,
        env: dict[str, str] | None = None,
        die_with_parent: bool = False,
        death_signal: int = signal.SIGTERM,
        user: str | None = None,
    ) -> None:
        """Start ``argv``, as ``user`` if given (the caller is root).
        ``die_with_parent``: send it ``death_signal`` when the calling
        thread ends (PR_SET_PDEATHSIG), so start it from a thread that lives
        on."""
        self.argv = list(argv)
        self.log_path = Path(log_path)
        self.env = env
        parent = os.getpid()
        account: dict[str, Any] = {}
        if user:
            entry = pwd.getpwnam(user)
            account = {
                'user': entry.pw_uid,
                'group': entry.pw_gid,
                'extra_groups': [],
            }
        with open(self.log_path, 'ab') as log:
            self.log_offset = log.tell()
            self.popen = subprocess.Popen(  # nosec B603 - fixed argv
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
                # Runs after the switch to ``user``, which would clear it.
                preexec_fn=(  # noqa: PLW1509
                    (lambda: _die_with_parent(parent, death_signal))
                    if die_with_parent
                    else None
                ),
                **account,
            )
        # Not reaped yet, so /proc/<pid> is there even if it exited.
        self.proc = Proc.of(self.popen.pid) or Proc(self.popen.pid, -1)

    @property
    def pid(self) -> int:
        """The process id (also its process group and session id)."""
        return self.popen.pid

    def running(self) -> bool:
        """Whether it has not exited (reaps it if it has)."""
        return self.popen.poll() is None

    def exit_reason(self) -> str:
        """How it ended: "exit status N" or "signal NAME"."""
        rc = self.popen.poll()
        if rc is None:
            return 'still running'
        if rc < 0:
            return f'signal {signal.Signals(-rc).name}'
        return f'exit status {rc}'

    def output_tail(self, lines: int = 20, limit: int = 4000) -> str:
        """What it wrote since it started: the last ``lines`` (at most
        ``limit`` characters), after the first lines if they are cut off
        (an error, before a usage text, is there)."""
        try:
            with open(self.log_path, 'rb') as log:
                log.seek(self.log_offset)
                text = log.read().decode(errors='replace')
        except OSError:
            return ''
        out = text.splitlines()
        if len(out) > lines + 5:
            out = [
                *out[:5],
                f'[... {len(out) - lines - 5} lines ...]',
                *out[-lines:],
            ]
        return '\n'.join(out)[-limit:]

    def stop(self, timeout: float = 10.0) -> list[int]:
        """Stop it, its process group and every descendant; return the pids
        that survived SIGKILL (none, normally)."""
        return stop_daemons([self], timeout)


# Daemons started by spawn(), by pid: only a parent can tell by waiting
# whether its child has exited, and it keeps the exit status.
_SPAWNED: dict[int, Daemon] = {}


# The parent-death signal fires when the *thread* that forked the child
# ends, not the process: children that must die with the test process are
# forked by this thread, which lives as long as the process.
_LAUNCHER = concurrent.futures.ThreadPoolExecutor(
    1, thread_name_prefix='procs-launcher'
)


def spawn(
    argv: Sequence[str],
    log_path: Path,
    *,
    env: dict[str, str] | None = None,
    die_with_parent: bool = False,
    death_signal: int = signal.SIGTERM,
    user: str | None = None,
) -> int:
    """Start ``argv`` as a :class:`Daemon`; return its pid. ``user``: run
    as that account (the caller is root). Daemons that die with their parent
    (sent ``death_signal`` then) are started by the launcher thread, which
    lives as long as the process."""

    def start() -> Daemon:
        return Daemon(
            argv,
            log_path,
            env=env,
            die_with_parent=die_with_parent,
            death_signal=death_signal,
            user=user,
        )

    daemon = _LAUNCHER.submit(start).result() if die_with_parent else start()
    _SPAWNED[daemon.pid] = daemon
    return daemon.pid


def spawned(pid: int) -> Daemon | None:
    """The daemon ``pid`` started by spawn() in this process, if any."""
    return _SPAWNED.get(pid)


def is_running(pid: int) -> bool:
    """Whether ``pid`` is alive: for a daemon of spawn(), whether it has not
    exited; for another process, whether it exists and is not a zombie."""
    daemon = _SPAWNED.get(pid)
    if daemon:
        return daemon.running()
    proc = Proc.of(pid)
    return bool(proc and proc.alive())


def _remaining(procs: Sequence[Proc]) -> tuple[list[int], list[Proc]]:
    """(live pids among ``procs`` and their groups, the procs that still
    lead a group or live), from one reading of /proc."""
    stats = dict(_all_stats())

    def ours(p: Proc) -> bool:  # its pid is not another process's now
        return p.pid not in stats or int(stats[p.pid][_START]) == p.start

    leaders = {p.pid for p in procs if ours(p)}
    live = {
        pid
        for pid, f in stats.items()
        if f[_STATE] != 'Z' and (pid in leaders or int(f[_PGRP]) in leaders)
    }
    groups = {int(stats[pid][_PGRP]) for pid in live}
    return sorted(live), [
        p for p in procs if ours(p) and (p.pid in live or p.pid in groups)
    ]


def stop_procs(
    procs: Sequence[Proc],
    timeout: float = 10.0,
    reap: Callable[[], object] = lambda: None,
) -> list[int]:
    """SIGTERM ``procs`` and the process groups they lead, SIGKILL what is
    left after ``timeout``; return the pids that survived (none, normally).
    The group of a leader that exited is stopped too."""

    def left() -> list[int]:
        reap()
        return _remaining(procs)[0]

    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        live, targets = _remaining(procs)
        if not live:
            return []
        for p in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, sig)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(p.pid, sig)
        if wait_for(lambda: not left(), wait, interval=0.05):
            return []
    return left()


def stop_daemons(
    daemons: Sequence[Daemon],
    timeout: float = 10.0,
    others: Sequence[Proc] = (),
) -> list[int]:
    """Stop ``daemons`` and ``others`` together with their groups and
    descendants (those in sessions of their own too); reap the daemons;
    return the pids that survived SIGKILL."""
    procs = [*(d.proc for d in daemons), *others]
    for proc in list(procs):
        if proc.alive():  # else its pid may be another process's now
            procs += descendants(proc.pid)

    def reap() -> None:
        for d in daemons:
            d.popen.poll()

    survivors = stop_procs(procs, timeout, reap)
    # /proc shows a leader 'Z' while its other threads still exit, and the
    # kernel reports its exit to waitpid only once they are gone: wait for
    # that, or a daemon "stopped" here still answers running().
    for d in daemons:
        try:
            d.popen.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            survivors.append(d.pid)
    return survivors


def stop(pid: int, timeout: float = 10.0) -> list[int]:
    """Stop the daemon or process ``pid`` with its group and descendants."""
    return stop_all([pid], timeout)


def stop_all(
    pids: Sequence[int], timeout: float = 10.0, others: Sequence[Proc] = ()
) -> list[int]:
    """Stop ``pids`` and ``others`` together, with their groups and
    descendants; return the pids that survived SIGKILL."""
    daemons = [_SPAWNED[p] for p in set(pids) if p in _SPAWNED]
    mine = {d.pid for d in daemons}
    procs = [p for p in map(Proc.of, set(pids) - mine) if p]
    return stop_daemons(daemons, timeout, [*procs, *others])


def wait_for(
    predicate: Callable[[], bool], timeout: float, interval: float = 0.1
) -> bool:
    """Call ``predicate`` until it is true or ``timeout`` seconds pass;
    return the last result."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def kill_group(pid: int, sig: int = signal.SIGKILL) -> list[Proc]:
    """Send ``sig`` to the process group led by ``pid``; wait until the
    leader is gone. Return its descendants in sessions of their own (a
    conductor's hook processes), which the signal does not reach: stop them
    later with stop_all(..., others=...)."""
    orphans = [p for p in descendants(pid) if _pgrp(p.pid) != pid]
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)
    if not wait_for(lambda: not is_running(pid), 10.0, interval=0.05):
        raise RuntimeError(f'pid {pid} survived signal {sig}')
    return orphans


def _pgrp(pid: int) -> int:
    fields = _stat(pid)
    return int(fields[_PGRP]) if fields else -1


def tail(path: Path, lines: int = 60) -> str:
    """The last ``lines`` of the text file ``path`` ('' if unreadable)."""
    try:
        return '\n'.join(
            path.read_text(errors='replace').splitlines()[-lines:]
        )
    except OSError:
        return ''


def api_answers(api_url: str) -> bool:
    """Whether vnfm-api at ``api_url`` answers its version query (a 401:
    it answers, asking for a Keystone token)."""
    import requests  # only the harness needs it

    try:
        r = requests.get(
            f'{api_url}/vnflcm/v2/api_versions',
            headers={'Version': '2.0.0'},
            timeout=2,
        )
    except requests.ConnectionError:
        return False
    return r.status_code in (200, 401)


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` in KiB, 0 if it is gone."""
    try:
        for line in Path(f'/proc/{pid}/status').read_text().splitlines():
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# --- vnfm-api and vnfm-conductors on a private vhost and database ---------

# user:password@host:port of RabbitMQ; the PostgreSQL server as in
# vnfm_testbed.db (an SQLAlchemy URL without the database).
RABBIT = os.environ.get('VNFM_TEST_RABBIT', 'guest:guest@127.0.0.1:5672')
POSTGRES_URL = os.environ.get(
    'VNFM_TEST_POSTGRESQL_URL', 'postgresql+psycopg2://postgres@127.0.0.1:5432'
).rstrip('/')
CONDUCTOR_TOPIC = 'vnfm-conductor'
# [outbound] allowed_networks that opens loopback to the services.
LOOPBACK = '127.0.0.0/8,::1/128'
# [conductor] options of test services: a dead conductor's ops fail within
# seconds.
FAST_LEASES: dict[str, object] = {
    'lease_seconds': 4,
    'heartbeat_interval': 1,
    'sweep_interval': 0.5,
    'unclaimed_grace_seconds': 2,
    'graceful_shutdown_timeout': 3,
}


def _rabbitmqctl(*args: str) -> str:
    out = subprocess.run(  # nosec B603 B607 - fixed argv
        ['rabbitmqctl', '-q', *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if out.returncode:
        raise RuntimeError(
            f'rabbitmqctl {" ".join(args)}: {out.stderr or out.stdout}'
        )
    return out.stdout


def create_vhost(name: str) -> str:
    """Create RabbitMQ vhost ``name`` open to guest; return the
    transport_url."""
    _rabbitmqctl('add_vhost', name)
    _rabbitmqctl('set_permissions', '-p', name, 'guest', '.*', '.*', '.*')
    return f'rabbit://{RABBIT}/{name}'


def delete_vhost(name: str) -> None:
    """Delete RabbitMQ vhost ``name`` with its queues."""
    _rabbitmqctl('delete_vhost', name)


def kombu_url(transport_url: str) -> str:
    """kombu's URL of an oslo.messaging rabbit transport_url: the nodes of
    ``rabbit://a:1,b:2/vhost`` become kombu's failover list."""
    hosts, _, vhost = transport_url.removeprefix('rabbit://').partition('/')
    return ';'.join(f'amqp://{host}/{vhost}' for host in hosts.split(','))


@contextlib.contextmanager
def _amqp_channel(transport_url: str) -> Iterator[Any]:
    """A kombu channel on the transport's vhost (on the first node of a
    cluster that answers)."""
    import kombu  # only the harness needs it

    url = kombu_url(transport_url)
    with kombu.Connection(url, connect_timeout=5) as conn:
        yield conn.default_channel


def queue_info(transport_url: str, queue: str) -> tuple[int, int] | None:
    """(messages ready, consumers) of ``queue`` in the transport's vhost;
    None if the queue does not exist."""
    from amqp.exceptions import NotFound

    with _amqp_channel(transport_url) as channel:
        try:
            ok = channel.queue_declare(queue, passive=True)
        except NotFound:
            return None
        return int(ok.message_count), int(ok.consumer_count)


def has_consumer(transport_url: str, queue: str) -> bool:
    """Whether ``queue`` exists and something consumes it."""
    return (queue_info(transport_url, queue) or (0, 0))[1] > 0


def purge_queue(transport_url: str, queue: str) -> int:
    """Drop the messages waiting in ``queue`` (a lost cast); return how
    many, -1 if the queue is missing."""
    from amqp.exceptions import NotFound

    with _amqp_channel(transport_url) as channel:
        try:
            return int(channel.queue_purge(queue) or 0)
        except NotFound:
            return -1


def copy_queue(
    transport_url: str, queue: str, exchange: str, routing_key: str = '#'
) -> None:
    """Declare ``queue`` bound to ``exchange``: from now on it gets a copy
    of every message published there under a matching routing key (what
    travels on the bus, for tests that inspect it)."""
    with _amqp_channel(transport_url) as channel:
        channel.queue_declare(queue, durable=False, auto_delete=False)
        channel.queue_bind(queue, exchange=exchange, routing_key=routing_key)


def drain_queue(transport_url: str, queue: str) -> list[str]:
    """Take every message waiting in ``queue``; their bodies, in order."""
    bodies = []
    with _amqp_channel(transport_url) as channel:
        while (message := channel.basic_get(queue, no_ack=True)) is not None:
            body = message.body
            bodies.append(
                body.decode(errors='replace')
                if isinstance(body, bytes)
                else str(body)
            )
    return bodies


def _pg_connect(dbname: str, server_url: str = '') -> Any:
    import psycopg2  # only the harness needs it

    url = parse.urlsplit(server_url or POSTGRES_URL)
    conn = psycopg2.connect(
        host=url.hostname,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        dbname=dbname,
    )
    conn.autocommit = True
    return conn


def _pg_admin(
    sql: str, params: tuple[str, ...] = (), server_url: str = ''
) -> Any:
    """Run one statement in the server's ``postgres`` database; its first
    row (None if it returns none)."""
    conn = _pg_connect('postgres', server_url)
    try:
        with conn.cursor() as cur:
            cur.execute(sql, params or None)
            return cur.fetchone() if cur.description else None
    finally:
        conn.close()


def create_database(
    name: str, server_url: str = '', template: str = ''
) -> str:
    """Create PostgreSQL database ``name`` (on ``server_url``, default the
    test server), a copy of ``template`` if given; return its SQLAlchemy
    URL."""
    copy = f' TEMPLATE "{template}"' if template else ''
    _pg_admin(f'CREATE DATABASE "{name}"{copy}', server_url=server_url)
    return f'{server_url or POSTGRES_URL}/{name}'


def database_exists(name: str, server_url: str = '') -> bool:
    """Whether PostgreSQL database ``name`` exists."""
    found = _pg_admin(
        'SELECT 1 FROM pg_database WHERE datname = %s', (name,), server_url
    )
    return found is not None


def rename_database(name: str, new_name: str, server_url: str = '') -> None:
    """Rename PostgreSQL database ``name`` (no session may be on it)."""
    _pg_admin(
        f'ALTER DATABASE "{name}" RENAME TO "{new_name}"',
        server_url=server_url,
    )


def drop_database(name: str, server_url: str = '') -> None:
    """Drop PostgreSQL database ``name``, closing any session still on it."""
    _pg_admin(
        f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', server_url=server_url
    )


def bin_path(name: str) -> str:
    """The console script ``name`` of the running venv."""
    path = os.path.join(sys.prefix, 'bin', name)
    if not os.path.exists(path):
        raise RuntimeError(
            f'{path} is missing: run `pip install -e .` in the venv'
        )
    return path


def ini(sections: dict[str, dict[str, object]]) -> str:
    """An INI file's text from {section: {option: value}}."""
    lines: list[str] = []
    for section, opts in sections.items():
        lines.append(f'[{section}]')
        lines += [f'{k} = {v}' for k, v in opts.items()]
        lines.append('')
    return '\n'.join(lines)


class VnfmServices:
    """vnfm-api and N vnfm-conductors on a fresh vhost and database; or on
    the given ``transport_url`` and a fresh database of PostgreSQL server
    ``postgres_url`` (private servers a test restarts). ``launch(service,
    argv)`` gives the command that runs ``argv`` for that service (on
    another host: :meth:`vnfm_testbed.hostns.HostNetwork.argv`)."""

    def __init__(
        self,
        workdir: Path,
        *,
        conf: dict[str, dict[str, object]] | None = None,
        env: dict[str, str] | None = None,
        transport_url: str = '',
        postgres_url: str = '',
        launch: Callable[[str, list[str]], list[str]] | None = None,
    ) -> None:
        self.workdir = Path(workdir)
        self.launch = launch
        self.given_transport_url = transport_url
        self.postgres_url = postgres_url
        self.name = f'vnfmit_{uuid.uuid4().hex[:10]}'
        self.extra_conf = conf or {}
        self.env = {**os.environ, **(env or {})}
        self.api_port = 0
        self.transport_url = ''
        self.db_url = ''
        # Service name (api, conductor-N) -> pid, and -> log file.
        self.pids: dict[str, int] = {}
        # What killed services left running (hooks in sessions of their
        # own), stopped with the services.
        self.orphans: list[Proc] = []
        self.logs: dict[str, Path] = {}
        self._seq = 0
        # The same Fernet key on every service, as production requires.
        self.crypto_key = base64.urlsafe_b64encode(os.urandom(32)).decode()

    @property
    def api_url(self) -> str:
        """Root URL of vnfm-api (what ``--os-endpoint`` takes)."""
        return f'http://127.0.0.1:{self.api_port}'

    def start(self, conductors: int = 2, timeout: float = 60.0) -> None:
        """Create the vhost and database, migrate, start the API and
        ``conductors`` conductors."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.transport_url = self.given_transport_url or create_vhost(
            self.name
        )
        self.db_url = create_database(self.name, self.postgres_url)
        self.api_port = free_port()
        self._db_manage('upgrade', timeout=timeout)
        # Start-up is mostly imports: start everything, then wait.
        self._spawn(
            'api',
            [
                bin_path('vnfm-api'),
                '--config-file',
                str(self.config_file('api')),
            ],
        )
        self.start_conductors(conductors, timeout=timeout)
        self._wait('api', self._api_answers, timeout)

    def config_file(self, host: str) -> Path:
        """Write the config file of service ``host``; return its path."""
        sections: dict[str, dict[str, object]] = {
            # One state_path per service, as on separate hosts.
            'DEFAULT': {
                'host': host,
                'transport_url': self.transport_url,
                'state_path': self.workdir / f'state-{host}',
            },
            'crypto': {'keys': self.crypto_key},
            # Each service's sessions carry its name (pg_stat_activity).
            'database': {
                'connection': f'{self.db_url}?application_name={host}'
            },
            'api': {'host_ip': '127.0.0.1', 'port': self.api_port},
            'conductor': dict(FAST_LEASES),
            'infra': {'enabled_infra_drivers': 'noop'},
            'mgmt_driver': {'script_timeout': 60},
            # The tests' notification receivers and download servers are on
            # loopback, which the outbound policy denies by default.
            'outbound': {'allowed_networks': LOOPBACK},
        }
        for section, opts in self.extra_conf.items():
            sections.setdefault(section, {}).update(opts)
        path = self.workdir / f'{host}.conf'
        path.write_text(ini(sections))
        return path

    def _db_manage(self, *args: str, timeout: float) -> None:
        log = self.workdir / 'db-manage.log'
        self.logs['db-manage'] = log
        with open(log, 'ab') as out:
            argv = [
                bin_path('vnfm-db-manage'),
                '--config-file',
                str(self.config_file('db-manage')),
                *args,
            ]
            rc = subprocess.run(  # nosec B603 - fixed argv
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.env,
                timeout=timeout,
                check=False,
            ).returncode
        if rc:
            raise RuntimeError(
                f'vnfm-db-manage {" ".join(args)} failed '
                f'({rc}):\n' + self.log_tails()
            )

    def _spawn(self, service: str, argv: list[str]) -> None:
        log = self.workdir / f'{service}.log'
        self.logs[service] = log
        if self.launch:
            argv = self.launch(service, argv)
        self.pids[service] = spawn(
            argv, log, env=self.env, die_with_parent=True
        )

    def _wait(
        self, service: str, ready: Callable[[], bool], timeout: float
    ) -> None:
        def check() -> bool:
            daemon = spawned(self.pids[service])
            if daemon and not daemon.running():
                raise RuntimeError(
                    f'{service} exited during start-up ('
                    f'{daemon.exit_reason()}):\n' + self.log_tails()
                )
            return ready()

        if not wait_for(check, timeout, interval=0.1):
            raise RuntimeError(
                f'{service} not ready after {timeout}s:\n' + self.log_tails()
            )

    def _api_answers(self) -> bool:
        return api_answers(self.api_url)

    def start_conductors(
        self, n: int = 1, timeout: float = 60.0, hosts: Sequence[str] = ()
    ) -> list[str]:
        """Start ``n`` vnfm-conductors (named conductor-N), or one per name
        in ``hosts`` (a restart: the same name again); wait until each
        consumes its queue (a cast to an undeclared queue is dropped)."""
        if not hosts:
            hosts = [f'conductor-{self._seq + i + 1}' for i in range(n)]
            self._seq += n
        for host in hosts:
            self._spawn(
                host,
                [
                    bin_path('vnfm-conductor'),
                    '--config-file',
                    str(self.config_file(host)),
                ],
            )
        for host in hosts:
            queue = f'{CONDUCTOR_TOPIC}.{host}'
            self._wait(host, functools.partial(self._consumed, queue), timeout)
        return list(hosts)

    def _consumed(self, queue: str) -> bool:
        return (queue_info(self.transport_url, queue) or (0, 0))[1] > 0

    def conductors(self) -> list[str]:
        """Hosts of the conductors running now."""
        return [
            s
            for s, pid in self.pids.items()
            if s.startswith('conductor-') and is_running(pid)
        ]

    def kill(self, service: str, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the process group of ``service``; wait until it
        is gone."""
        self.orphans += kill_group(self.pids[service], sig)

    def terminate(self, *services: str) -> None:
        """Stop ``services`` gracefully (SIGTERM), all at once; wait until
        each has exited."""
        survivors = stop_all([self.pids[s] for s in services])
        if survivors:
            raise RuntimeError(
                f'{", ".join(services)}: pids {survivors} survived SIGKILL'
            )

    def stop(self) -> None:
        """Stop every service, then delete the vhost and the database."""
        import psycopg2

        stop_all(list(self.pids.values()), others=self.orphans)
        if not self.transport_url:
            return
        if not self.given_transport_url:
            with contextlib.suppress(RuntimeError, OSError):
                delete_vhost(self.name)
        with contextlib.suppress(psycopg2.Error):
            drop_database(self.name, self.postgres_url)

    def log_tails(self, lines: int = 60) -> str:
        """The last ``lines`` of every service log, for failure reports."""
        out = []
        for service, path in self.logs.items():
            out.append(f'----- {service} ({path}) -----\n' + tail(path, lines))
        return '\n'.join(out)

    def db_connection(self) -> Any:
        """A new psycopg2 connection (autocommit) to the services'
        database."""
        return _pg_connect(self.name, self.postgres_url)

    def sql(self, query: str, params: Sequence[object] = ()) -> list[tuple]:
        """Run ``query`` on the services' database; return its rows."""
        conn = self.db_connection()
        try:
            with conn.cursor() as cur:
                cur.execute(query, params)
                return cur.fetchall() if cur.description else []
        finally:
            conn.close()
