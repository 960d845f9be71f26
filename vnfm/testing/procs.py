"""Starting and stopping test daemons by pid, each in its own process group.

Used by the local Kubernetes cluster and by ``VnfmServices`` (vnfm-api and
vnfm-conductors on a private RabbitMQ vhost and PostgreSQL database) of the
integration tests and benchmarks.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import functools
import os
import signal
import socket
import subprocess  # nosec B404 - launching our own test daemons
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib import parse

_PR_SET_PDEATHSIG = 1


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def spawn(argv: Sequence[str], log_path: Path, *,
          env: dict[str, str] | None = None,
          die_with_parent: bool = False) -> int:
    """Start ``argv`` in a new session, output to ``log_path``; return its
    pid."""
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(  # nosec B603 - fixed argv, no shell
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
            preexec_fn=_die_with_parent if die_with_parent else None,  # noqa: PLW1509
        )
    # The child is reaped by stop()/is_running(); keep no Popen handle around.
    proc.returncode = 0
    return proc.pid


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def is_running(pid: int, expect: str = "") -> bool:
    """Tell whether ``pid`` is alive (not a zombie) and its command line
    contains ``expect``."""
    _reap(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        ).decode()
    except OSError:
        return False
    if stat.rsplit(")", 1)[1].split()[0] == "Z":
        return False
    return expect in cmdline


def stop(pid: int, expect: str = "", timeout: float = 10.0) -> None:
    """Terminate the process group led by ``pid``; kill it if it
    lingers."""
    if not is_running(pid, expect):
        return
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        if wait_for(lambda: not is_running(pid), wait, interval=0.05):
            return


def _all_gone(pids: Sequence[int]) -> bool:
    return not any(map(is_running, pids))


def stop_all(pids: Sequence[int], timeout: float = 10.0) -> None:
    """Terminate the process groups led by ``pids`` together; kill those
    that linger."""
    live = [pid for pid in pids if is_running(pid)]
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        for pid in live:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, sig)
        wait_for(functools.partial(_all_gone, live), wait, interval=0.05)
        live = [pid for pid in live if is_running(pid)]
        if not live:
            return


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


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` in KiB, 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# --- vnfm-api and vnfm-conductors on a private vhost and database ---------

# user:password@host:port of RabbitMQ; the PostgreSQL server as in
# vnfm.testing.db (an SQLAlchemy URL without the database).
RABBIT = os.environ.get("VNFM_TEST_RABBIT", "guest:guest@127.0.0.1:5672")
POSTGRES_URL = os.environ.get(
    "VNFM_TEST_POSTGRESQL_URL", "postgresql+psycopg2://postgres@127.0.0.1:5432"
).rstrip("/")
CONDUCTOR_TOPIC = "vnfm-conductor"
# [outbound] allowed_networks that opens loopback to the services.
LOOPBACK = "127.0.0.0/8,::1/128"


def _rabbitmqctl(*args: str) -> str:
    out = subprocess.run(  # nosec B603 B607 - fixed argv
        ["rabbitmqctl", "-q", *args], capture_output=True, text=True,
        timeout=60, check=False)
    if out.returncode:
        raise RuntimeError(
            f"rabbitmqctl {' '.join(args)}: {out.stderr or out.stdout}")
    return out.stdout


def create_vhost(name: str) -> str:
    """Create RabbitMQ vhost ``name`` open to guest; return the
    transport_url."""
    _rabbitmqctl("add_vhost", name)
    _rabbitmqctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*")
    return f"rabbit://{RABBIT}/{name}"


def delete_vhost(name: str) -> None:
    """Delete RabbitMQ vhost ``name`` with its queues."""
    _rabbitmqctl("delete_vhost", name)


@contextlib.contextmanager
def _amqp_channel(transport_url: str) -> Iterator[Any]:
    """A kombu channel on the transport's vhost."""
    import kombu  # only the harness needs it

    url = transport_url.replace("rabbit://", "amqp://", 1)
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


def copy_queue(transport_url: str, queue: str, exchange: str,
               routing_key: str = "#") -> None:
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
            bodies.append(body.decode(errors="replace")
                          if isinstance(body, bytes) else str(body))
    return bodies


def _pg_connect(dbname: str) -> Any:
    import psycopg2  # only the harness needs it

    url = parse.urlsplit(POSTGRES_URL)
    conn = psycopg2.connect(host=url.hostname, port=url.port or 5432,
                            user=url.username, password=url.password,
                            dbname=dbname)
    conn.autocommit = True
    return conn


def create_database(name: str) -> str:
    """Create PostgreSQL database ``name``; return its SQLAlchemy URL."""
    conn = _pg_connect("postgres")
    try:
        with conn.cursor() as cur:
            cur.execute(f'CREATE DATABASE "{name}"')
    finally:
        conn.close()
    return f"{POSTGRES_URL}/{name}"


def drop_database(name: str) -> None:
    """Drop PostgreSQL database ``name``, closing any session still on it."""
    conn = _pg_connect("postgres")
    try:
        with conn.cursor() as cur:
            cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        conn.close()


def _bin(name: str) -> str:
    path = os.path.join(sys.prefix, "bin", name)
    if not os.path.exists(path):
        raise RuntimeError(
            f"{path} is missing: run `pip install -e .` in the venv")
    return path


def _ini(sections: dict[str, dict[str, object]]) -> str:
    lines: list[str] = []
    for section, opts in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {v}" for k, v in opts.items()]
        lines.append("")
    return "\n".join(lines)


class VnfmServices:
    """vnfm-api and N vnfm-conductors on a fresh vhost and database."""

    def __init__(self, workdir: Path, *,
                 conf: dict[str, dict[str, object]] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.workdir = Path(workdir)
        self.name = f"vnfmit_{uuid.uuid4().hex[:10]}"
        self.extra_conf = conf or {}
        self.env = {**os.environ, **(env or {})}
        self.api_port = 0
        self.transport_url = ""
        self.db_url = ""
        # Service name (api, conductor-N) -> pid, and -> log file.
        self.pids: dict[str, int] = {}
        self.logs: dict[str, Path] = {}
        self._seq = 0
        # The same Fernet key on every service, as production requires.
        self.crypto_key = base64.urlsafe_b64encode(os.urandom(32)).decode()

    @property
    def api_url(self) -> str:
        """Root URL of vnfm-api (what ``--os-endpoint`` takes)."""
        return f"http://127.0.0.1:{self.api_port}"

    def start(self, conductors: int = 2, timeout: float = 60.0) -> None:
        """Create the vhost and database, migrate, start the API and
        ``conductors`` conductors."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.transport_url = create_vhost(self.name)
        self.db_url = create_database(self.name)
        self.api_port = free_port()
        self._db_manage("upgrade", timeout=timeout)
        # Start-up is mostly imports: start everything, then wait.
        self._spawn("api", [_bin("vnfm-api"), "--config-file",
                            str(self.config_file("api"))])
        self.start_conductors(conductors, timeout=timeout)
        self._wait("api", self._api_answers, timeout)

    def config_file(self, host: str) -> Path:
        """Write the config file of service ``host``; return its path."""
        sections: dict[str, dict[str, object]] = {
            # One state_path per service, as on separate hosts.
            "DEFAULT": {"host": host, "transport_url": self.transport_url,
                        "state_path": self.workdir / f"state-{host}"},
            "crypto": {"keys": self.crypto_key},
            "database": {"connection": self.db_url},
            "api": {"host_ip": "127.0.0.1", "port": self.api_port},
            "conductor": {"lease_seconds": 4, "heartbeat_interval": 1,
                          "sweep_interval": 0.5, "unclaimed_grace_seconds": 2,
                          "graceful_shutdown_timeout": 3},
            "infra": {"enabled_infra_drivers": "noop"},
            "mgmt_driver": {"script_timeout": 60},
            # The tests' notification receivers and download servers are on
            # loopback, which the outbound policy denies by default.
            "outbound": {"allowed_networks": LOOPBACK},
        }
        for section, opts in self.extra_conf.items():
            sections.setdefault(section, {}).update(opts)
        path = self.workdir / f"{host}.conf"
        path.write_text(_ini(sections))
        return path

    def _db_manage(self, *args: str, timeout: float) -> None:
        log = self.workdir / "db-manage.log"
        self.logs["db-manage"] = log
        with open(log, "ab") as out:
            argv = [_bin("vnfm-db-manage"), "--config-file",
                    str(self.config_file("db-manage")), *args]
            rc = subprocess.run(  # nosec B603 - fixed argv
                argv, stdout=out, stderr=subprocess.STDOUT, env=self.env,
                timeout=timeout, check=False).returncode
        if rc:
            raise RuntimeError(f"vnfm-db-manage {' '.join(args)} failed "
                               f"({rc}):\n" + self.log_tails())

    def _spawn(self, service: str, argv: list[str]) -> None:
        log = self.workdir / f"{service}.log"
        self.logs[service] = log
        self.pids[service] = spawn(argv, log, env=self.env,
                                   die_with_parent=True)

    def _wait(self, service: str, ready: Callable[[], bool],
              timeout: float) -> None:
        def check() -> bool:
            if not is_running(self.pids[service]):
                raise RuntimeError(f"{service} exited during start-up:\n"
                                   + self.log_tails())
            return ready()

        if not wait_for(check, timeout, interval=0.1):
            raise RuntimeError(f"{service} not ready after {timeout}s:\n"
                               + self.log_tails())

    def _api_answers(self) -> bool:
        import requests

        try:
            r = requests.get(f"{self.api_url}/vnflcm/v2/api_versions",
                             headers={"Version": "2.0.0"}, timeout=2)
        except requests.ConnectionError:
            return False
        return r.status_code == 200

    def start_conductors(self, n: int = 1, timeout: float = 60.0
                         ) -> list[str]:
        """Start ``n`` vnfm-conductors (named conductor-N); wait until each
        consumes its queue (a cast to an undeclared queue is dropped)."""
        hosts = []
        for _ in range(n):
            self._seq += 1
            host = f"conductor-{self._seq}"
            self._spawn(host, [_bin("vnfm-conductor"), "--config-file",
                               str(self.config_file(host))])
            hosts.append(host)
        for host in hosts:
            queue = f"{CONDUCTOR_TOPIC}.{host}"
            self._wait(host, functools.partial(
                has_consumer, self.transport_url, queue), timeout)
        return hosts

    def conductors(self) -> list[str]:
        """Hosts of the conductors running now."""
        return [s for s, pid in self.pids.items()
                if s.startswith("conductor-") and is_running(pid)]

    def kill(self, service: str, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the process group of ``service``; wait until it
        is gone."""
        pid = self.pids[service]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, sig)
        if not wait_for(lambda: not is_running(pid), 10.0, interval=0.05):
            raise RuntimeError(f"{service} (pid {pid}) survived signal {sig}")

    def terminate(self, *services: str) -> None:
        """Stop ``services`` gracefully (SIGTERM), all at once."""
        stop_all([self.pids[s] for s in services])

    def stop(self) -> None:
        """Stop every service, then delete the vhost and the database."""
        import psycopg2

        stop_all(list(self.pids.values()))
        if not self.transport_url:
            return
        with contextlib.suppress(RuntimeError, OSError):
            delete_vhost(self.name)
        with contextlib.suppress(psycopg2.Error):
            drop_database(self.name)

    def log_tails(self, lines: int = 60) -> str:
        """The last ``lines`` of every service log, for failure reports."""
        out = []
        for service, path in self.logs.items():
            try:
                tail = path.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                continue
            out.append(f"----- {service} ({path}) -----\n" + "\n".join(tail))
        return "\n".join(out)

    def sql(self, query: str, params: Sequence[object] = ()) -> list[tuple]:
        """Run ``query`` on the services' database; return its rows."""
        conn = _pg_connect(self.name)
        try:
            with conn.cursor() as cur:
                cur.execute(query, params)
                return cur.fetchall() if cur.description else []
        finally:
            conn.close()
