"""vnfm-api: serves the API with cheroot.

    vnfm-api --config-file /etc/vnfm/vnfm.conf

Listens on ``[api] host_ip``:``[api] port`` with ``[api] workers``
processes of ``[api] threads`` threads each (the processes share the port
through SO_REUSEPORT; one Python process uses one core), HTTP/1.1
keep-alive and TCP_NODELAY. SIGTERM (or SIGINT) stops accepting connections
and lets requests in progress finish; a worker that dies is replaced.
Start-up fails when ``[crypto] keys`` is not set: the conductors, on other
hosts, could not read the credentials this API stores.

The supervisor of several workers reads the configuration and forks; it
never imports the application (the WSGI app, the database layer,
oslo.messaging): each worker imports it after the fork, so the supervisor
stays small and a worker that dies is replaced from a clean state.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from typing import TYPE_CHECKING

from oslo_log import log as logging

from vnfm.common import crypto
from vnfm.common import gc_pauses
from vnfm.common import process
from vnfm.conf import CONF

if TYPE_CHECKING:
    from cheroot import wsgi

LOG = logging.getLogger(__name__)


def make_server(
    application: object = None, reuse_port: bool = False
) -> wsgi.Server:
    """A cheroot server for the API on the configured address."""
    # Imported here: the supervisor of the workers never loads them.
    from cheroot import wsgi  # noqa: PLC0415

    from vnfm.common import rpc  # noqa: PLC0415
    from vnfm.server import app as api_app  # noqa: PLC0415

    rpc.set_defaults(CONF)
    server = wsgi.Server(
        (CONF.api.host_ip, CONF.api.port),
        application or api_app.build_app(),
        numthreads=CONF.api.threads,
        server_name='vnfm-api',
        # Idle kept-alive connections stay open a minute, as most servers
        # and load balancers expect.
        timeout=60,
        shutdown_timeout=10,
        request_queue_size=128,
        reuse_port=reuse_port,
    )
    server.nodelay = True  # no delayed-ACK stalls on kept-alive connections
    return server


def warm_up() -> None:
    """Do before serving what the first requests would do: load the policy
    rules, build the request schemas' validators, open a pooled database
    connection (together ~100 ms of a first request otherwise)."""
    from vnfm.common import schemacheck  # noqa: PLC0415
    from vnfm.db import session  # noqa: PLC0415
    from vnfm.server import policies  # noqa: PLC0415
    from vnfm.server import router  # noqa: PLC0415

    policies.get_enforcer()
    for _path, methods in router.TABLE:
        for action in methods.values():
            if action.schema is not None:
                schemacheck.compile_schema(action.schema)
    try:
        with session.reader() as conn:
            conn.exec_driver_sql('SELECT 1')
    except Exception as e:  # noqa: BLE001 - requests will report it
        LOG.warning(
            'vnfm-api could not reach the database yet (%s)', type(e).__name__
        )


def _stop(signum: int, _frame: object) -> None:
    # cheroot's safe_start turns SystemExit into a graceful stop.
    raise SystemExit(0)


def serve(reuse_port: bool = False) -> int:
    """Serve the API in this process until SIGTERM/SIGINT."""
    server = make_server(reuse_port=reuse_port)
    warm_up()
    gc_pauses.settle(CONF)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop)
    LOG.info(
        'vnfm-api (pid %d) listening on %s:%s',
        os.getpid(),
        CONF.api.host_ip,
        CONF.api.port,
    )
    try:
        server.safe_start()
    except SystemExit:
        pass
    finally:
        server.stop()
    LOG.info('vnfm-api (pid %d) stopped', os.getpid())
    return 0


class Supervisor:
    """Forks the worker processes and replaces any that dies."""

    # Workers that keep dying this soon after their start are not
    # restarted for ever: they would only die again (bad config, port taken).
    MIN_LIFETIME = 2.0
    MAX_QUICK_DEATHS = 5

    def __init__(self, count: int) -> None:
        self.count = count
        self.children: dict[int, float] = {}
        self.stopping = False
        self.quick_deaths = 0

    def _spawn(self) -> None:
        pid = os.fork()
        if pid == 0:  # the worker: nothing of the parent's state is shared
            # Until serve() installs its own, a SIGTERM must end this
            # worker, not run the supervisor's handler it inherited (the
            # worker would then serve on and the supervisor wait for ever).
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, signal.SIG_DFL)
            code = 1
            try:
                code = serve(reuse_port=True)
            finally:
                os._exit(code)
        self.children[pid] = time.monotonic()
        if self.stopping:  # SIGTERM came between fork and the line above
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def _on_signal(self, signum: int, _frame: object) -> None:
        self.stopping = True
        for pid in list(self.children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def run(self) -> int:
        """Run until stopped; 1 if workers kept dying at start."""
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._on_signal)
        # The workers' collections then leave the pages they share with
        # this process alone (no copy on write of what both hold).
        gc_pauses.freeze_start_up()
        for _ in range(self.count):
            self._spawn()
        rc = 0
        while self.children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            started = self.children.pop(pid, None)
            if self.stopping or started is None:
                continue
            LOG.error('vnfm-api worker %d exited (status %d)', pid, status)
            quick = time.monotonic() - started < self.MIN_LIFETIME
            self.quick_deaths = self.quick_deaths + 1 if quick else 0
            if self.quick_deaths > self.MAX_QUICK_DEATHS:
                LOG.error('vnfm-api workers keep dying at start; stopping')
                rc = 1
                self._on_signal(signal.SIGTERM, None)
            else:
                self._spawn()
        return rc


def main(argv: list[str] | None = None) -> int:
    """Entry point of vnfm-api."""
    logging.register_options(CONF)
    CONF(sys.argv[1:] if argv is None else argv, project='vnfm')
    logging.setup(CONF, 'vnfm')
    process.limit_malloc_arenas()
    try:
        crypto.require_shared_keys('vnfm-api')
    except crypto.KeysNotConfigured as e:
        LOG.error('vnfm-api cannot start: %s', e.detail)
        print(f'vnfm-api cannot start: {e.detail}', file=sys.stderr)
        return 1
    workers = CONF.api.workers or os.cpu_count() or 1
    if workers == 1:
        return serve()
    LOG.info('vnfm-api starting %d worker processes', workers)
    return Supervisor(workers).run()
