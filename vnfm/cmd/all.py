"""vnfm-all: the API and a conductor in one process (the first-run mode).

    vnfm-all [--config-file vnfm.conf]

Embedded defaults, for what the configuration does not set:
``[DEFAULT] transport_url = fake://`` (oslo.messaging's in-process bus) and
SQLite in ``[DEFAULT] state_path`` (created). The database is migrated at
start. The API is served by the same cheroot server as ``vnfm-api``; the
conductor is the same ``ConductorService`` as ``vnfm-conductor``. SIGTERM
or SIGINT stops both gracefully.
"""

from __future__ import annotations

import logging as std_logging
import os
import signal
import sys
from urllib import parse

import oslo_messaging
from cheroot import wsgi
from oslo_config import cfg
from oslo_log import log as logging

from vnfm.cmd import api as api_cmd
from vnfm.common import gc_pauses
from vnfm.common import process
from vnfm.common import rpc
from vnfm.conductor.service import ConductorService
from vnfm.conf import CONF
from vnfm.db import migration
from vnfm.db import session
from vnfm.drivers.loader import DriverLoadError

LOG = logging.getLogger(__name__)

EMBEDDED_TRANSPORT_URL = 'fake://'


def set_embedded_defaults(conf: cfg.ConfigOpts) -> None:
    """Default the transport to the in-process bus (the database already
    defaults to SQLite in state_path)."""
    # oslo.messaging registers transport_url lazily; a TransportURL object
    # registers it, so its default can be changed before parsing.
    oslo_messaging.TransportURL(conf)
    conf.set_default('transport_url', EMBEDDED_TRANSPORT_URL)


def _where(server: wsgi.Server) -> str:
    """What a user needs to know: the URL, and where state lives (no
    secrets: the database and transport URLs may hold passwords)."""
    host, port = server.bind_addr[:2]
    database = (
        'SQLite in ' + session.connection_url().split(':///', 1)[1]
        if not CONF.database.connection
        else parse.urlsplit(CONF.database.connection).scheme
    )
    transport = parse.urlsplit(CONF.transport_url).scheme or 'fake'
    return (
        f'vnfm-all: API listening on http://{host}:{port} '
        f'(state {CONF.state_path}, database {database}, '
        f'message bus {transport}://)'
    )


def _stop(signum: int, _frame: object) -> None:
    # Leaves server.serve() in the main thread; stopping happens below.
    raise SystemExit(0)


def _serve(server: wsgi.Server) -> None:
    """Serve until SIGTERM/SIGINT, then stop accepting and drain."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop)
    try:
        server.serve()
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    """Entry point of vnfm-all."""
    logging.register_options(CONF)
    set_embedded_defaults(CONF)
    CONF(sys.argv[1:] if argv is None else argv, project='vnfm')
    logging.setup(CONF, 'vnfm')
    rpc.set_defaults(CONF)
    process.limit_malloc_arenas()
    os.makedirs(CONF.state_path, exist_ok=True)
    migration.upgrade()
    try:
        conductor = ConductorService()
    except DriverLoadError as e:
        print(f'vnfm-all cannot start: {e.detail}', file=sys.stderr)
        return 1
    server = api_cmd.make_server()
    try:
        server.prepare()  # binds now: a busy port fails before any work
    except OSError as e:
        print(
            f'vnfm-all cannot listen on {CONF.api.host_ip}:'
            f'{CONF.api.port}: {e}',
            file=sys.stderr,
        )
        return 1
    api_cmd.warm_up()
    gc_pauses.settle(CONF)
    conductor.start()
    print(_where(server), flush=True)
    LOG.info('%s', _where(server))
    try:
        _serve(server)
    finally:
        LOG.info('Stopping vnfm-all')
        finished = conductor.stop()
        rpc.set_transport(None)
        session.set_engine(None)
    if finished:
        return 0
    # Operations still running were marked FAILED_TEMP; do not let the
    # interpreter wait for their threads at exit.
    std_logging.shutdown()
    os._exit(1)


if __name__ == '__main__':
    sys.exit(main())
