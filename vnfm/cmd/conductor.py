"""vnfm-conductor: runs LCM operations and package onboarding.

    vnfm-conductor --config-file /etc/vnfm/vnfm.conf

Start-up fails with a clear message when a driver named in
``[infra] enabled_infra_drivers`` or ``[mgmt_driver] enabled_builtin_drivers``
does not load, or when ``[crypto] keys`` is not set (each host would
generate its own key and could not read what the API stores). SIGTERM
(or SIGINT) stops it gracefully: no new work, running operations get
``[conductor] graceful_shutdown_timeout`` seconds to finish.
"""

from __future__ import annotations

import logging as std_logging
import os
import signal
import sys
import threading

from oslo_log import log as logging

from vnfm.common import crypto
from vnfm.common import gc_pauses
from vnfm.common import process
from vnfm.common import rpc
from vnfm.conductor.service import ConductorService
from vnfm.conf import CONF
from vnfm.drivers.loader import DriverLoadError

LOG = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    """Entry point of vnfm-conductor."""
    logging.register_options(CONF)
    CONF(sys.argv[1:] if argv is None else argv, project='vnfm')
    logging.setup(CONF, 'vnfm')
    rpc.set_defaults(CONF)
    process.limit_malloc_arenas()
    try:
        crypto.require_shared_keys('vnfm-conductor')
        service = ConductorService()
    except (DriverLoadError, crypto.KeysNotConfigured) as e:
        LOG.error('vnfm-conductor cannot start: %s', e.detail)
        print(f'vnfm-conductor cannot start: {e.detail}', file=sys.stderr)
        return 1
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    gc_pauses.settle(CONF)
    service.start()
    while not stop.wait(3600):
        pass
    LOG.info('Stopping vnfm-conductor %s', service.host)
    if service.stop():
        return 0
    # Operations still running were marked FAILED_TEMP; do not let the
    # interpreter wait for their threads at exit.
    std_logging.shutdown()
    os._exit(1)


if __name__ == '__main__':
    sys.exit(main())
