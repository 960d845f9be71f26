"""WSGI entry point for uwsgi / mod_wsgi / gunicorn.

    uwsgi --http :9890 --wsgi-file $(which vnfm-api-wsgi)
    # or: --module vnfm.server.wsgi:application

The configuration files come from ``VNFM_CONFIG_FILE`` (one path, or
several separated by commas) or oslo.config's default locations
(``/etc/vnfm/vnfm.conf``, ``~/.vnfm/vnfm.conf``, ...).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable

from vnfm.common import process

# Before anything imports oslo.messaging (see the function).
process.without_eventlet()

from oslo_log import log as logging  # noqa: E402

from vnfm.common import crypto  # noqa: E402
from vnfm.common import gc_pauses  # noqa: E402
from vnfm.common import rpc  # noqa: E402
from vnfm.conf import CONF  # noqa: E402
from vnfm.server import app as api_app  # noqa: E402


def _config_files() -> list[str] | None:
    value = os.environ.get('VNFM_CONFIG_FILE', '').strip()
    return [f.strip() for f in value.split(',') if f.strip()] or None


def init_application() -> Callable:
    """Parse the configuration, set up logging, return the WSGI app (what
    start-up made frozen out of the garbage collector's walks);
    KeysNotConfigured when ``[crypto] keys`` is not set."""
    logging.register_options(CONF)
    CONF([], project='vnfm', default_config_files=_config_files())
    logging.setup(CONF, 'vnfm')
    rpc.set_defaults(CONF)
    try:
        crypto.require_shared_keys('vnfm-api')
    except crypto.KeysNotConfigured as e:
        logging.getLogger(__name__).error(
            'vnfm-api cannot start: %s', e.detail
        )
        raise
    app = api_app.build_app()
    gc_pauses.settle(CONF)
    return app


class _LazyApplication:
    """Initialises on the first request, after the server has forked."""

    def __init__(self) -> None:
        self._app: Callable | None = None
        self._lock = threading.Lock()

    def __call__(
        self, environ: dict, start_response: Callable
    ) -> Iterable[bytes]:
        if self._app is None:
            with self._lock:
                if self._app is None:
                    self._app = init_application()
        return self._app(environ, start_response)


application = _LazyApplication()
